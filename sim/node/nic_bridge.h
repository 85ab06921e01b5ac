// The node NIC's simulation side bridged to a real loopback socket (UDP datagrams or a TCP stream).
// Everything is non-blocking: the simulator calls poll() every few hundred cycles and never waits.
#ifndef NODE_NIC_BRIDGE_H
#define NODE_NIC_BRIDGE_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace node {

// The NIC's largest packet (spec: max packet 2048 bytes); TCP stream bytes are cut to this size.
constexpr size_t kMaxPacket = 2048;

class NicBridge {
public:
    ~NicBridge();

    // MODE: udp-connect:HOST:PORT, udp-listen:PORT, tcp-connect:HOST:PORT, tcp-listen:PORT.
    // Sets up the socket (a TCP connect is completed here, before the simulation starts); false
    // with a reason in *err on a bad mode or a socket error.
    bool open(const std::string& mode, std::string* err);

    // Non-blocking socket work: accept, receive into rx_queue, flush pending stream output.
    void poll();

    // A packet the firmware sent (the NIC's TX stream up to `last`).
    void send(const std::vector<uint8_t>& pkt);

    // Received packets not yet handed to the NIC, oldest first.
    std::deque<std::vector<uint8_t>> rx_queue;

    // The port a listen mode bound (useful with PORT 0), else 0.
    int bound_port() const { return bound_port_; }

    // Warnings are printed at most once per kind, on stderr, unless quiet.
    bool quiet = false;

private:
    enum class Kind { kNone, kUdpConnect, kUdpListen, kTcpConnect, kTcpListen };
    void warn_once(int which, const std::string& msg);
    void close_conn(const char* why);
    void flush_stream();

    Kind kind_ = Kind::kNone;
    int fd_ = -1;         // the UDP socket, the TCP connection
    int listen_fd_ = -1;  // tcp-listen before the connection is accepted
    int bound_port_ = 0;
    bool peer_known_ = false;  // udp-listen: a datagram arrived, replies go to its source
    std::vector<uint8_t> peer_addr_;
    bool stream_closed_ = false;  // TCP: the connection is gone (a write failed)
    bool rx_eof_ = false;         // TCP: the peer sends no more
    std::vector<uint8_t> out_;  // TCP bytes not yet accepted by the kernel
    size_t out_pos_ = 0;
    unsigned warned_ = 0;
};

}  // namespace node

#endif
