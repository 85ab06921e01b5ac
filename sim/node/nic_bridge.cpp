// Socket side of the node NIC bridge. UDP keeps packet boundaries (one datagram = one packet);
// TCP does not, so stream bytes become packets of whatever recv() returned, at most kMaxPacket.
#include "nic_bridge.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace node {

namespace {

// Packets waiting for the NIC; beyond this the bridge stops reading and the kernel buffers (TCP)
// or drops (UDP), which is what a real link does under overload.
constexpr size_t kMaxRxQueue = 1024;
// Stream bytes the peer has not read yet; beyond this TX packets are dropped.
constexpr size_t kMaxTxBacklog = 16u * 1024 * 1024;
// How long set-up waits for a TCP connect (before the simulation starts).
constexpr int kConnectTimeoutMs = 3000;

enum Warn { kNoPeer, kSendErr, kOversize, kEmpty, kNotConnected, kBacklog, kClosed, kRecvErr, kLost };

bool parse_port(const std::string& s, bool allow_zero, int* port)
{
    if (s.empty() || s.size() > 5)
        return false;
    for (char c : s)
        if (c < '0' || c > '9')
            return false;
    int p = std::atoi(s.c_str());
    if (p > 65535 || (p == 0 && !allow_zero))
        return false;
    *port = p;
    return true;
}

// "HOST:PORT" split at the last ':' (so "[::1]:9000" and "::1:9000" work too).
bool split_host_port(const std::string& s, std::string* host, int* port)
{
    size_t colon = s.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return false;
    *host = s.substr(0, colon);
    if (host->size() >= 2 && host->front() == '[' && host->back() == ']')
        *host = host->substr(1, host->size() - 2);
    return parse_port(s.substr(colon + 1), false, port);
}

bool set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

}  // namespace

NicBridge::~NicBridge()
{
    if (fd_ >= 0) {
        flush_stream();  // best effort: the last packets of a short run
        ::close(fd_);
    }
    if (listen_fd_ >= 0)
        ::close(listen_fd_);
}

void NicBridge::warn_once(int which, const std::string& msg)
{
    if (warned_ & (1u << which))
        return;
    warned_ |= 1u << which;
    if (!quiet)
        std::fprintf(stderr, "node: nic: %s\n", msg.c_str());
}

bool NicBridge::open(const std::string& mode, std::string* err)
{
    size_t colon = mode.find(':');
    std::string what = mode.substr(0, colon), arg = colon == std::string::npos ? "" : mode.substr(colon + 1);
    bool udp = what == "udp-connect" || what == "udp-listen";
    bool listen = what == "udp-listen" || what == "tcp-listen";
    if (what == "udp-connect")
        kind_ = Kind::kUdpConnect;
    else if (what == "udp-listen")
        kind_ = Kind::kUdpListen;
    else if (what == "tcp-connect")
        kind_ = Kind::kTcpConnect;
    else if (what == "tcp-listen")
        kind_ = Kind::kTcpListen;
    else {
        *err = "unknown NIC mode '" + mode + "' (udp-connect:HOST:PORT, udp-listen:PORT, "
               "tcp-connect:HOST:PORT, tcp-listen:PORT)";
        return false;
    }

    if (listen) {
        int port;
        if (!parse_port(arg, true, &port)) {
            *err = "bad port in '" + mode + "'";
            return false;
        }
        int fd = ::socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            *err = std::string("socket: ") + std::strerror(errno);
            return false;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(static_cast<uint16_t>(port));
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
            (!udp && ::listen(fd, 1) != 0) || !set_nonblocking(fd)) {
            *err = "bind 127.0.0.1:" + arg + ": " + std::strerror(errno);
            ::close(fd);
            return false;
        }
        socklen_t len = sizeof sa;
        getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
        bound_port_ = ntohs(sa.sin_port);
        (udp ? fd_ : listen_fd_) = fd;
        return true;
    }

    std::string host;
    int port;
    if (!split_host_port(arg, &host, &port)) {
        *err = "expected HOST:PORT in '" + mode + "'";
        return false;
    }
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = udp ? SOCK_DGRAM : SOCK_STREAM;
    int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
    if (rc != 0) {
        *err = "cannot resolve '" + host + "': " + gai_strerror(rc);
        return false;
    }
    std::string last_err = "no address";
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) {
            last_err = std::strerror(errno);
            continue;
        }
        int r = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (r != 0 && errno == EINPROGRESS) {
            pollfd p{fd, POLLOUT, 0};
            int soerr = 0;
            socklen_t sl = sizeof soerr;
            if (::poll(&p, 1, kConnectTimeoutMs) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0)
                r = 0;
            else
                errno = soerr ? soerr : ETIMEDOUT;
        }
        if (r == 0) {
            if (!udp) {
                int one = 1;
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            }
            fd_ = fd;
            break;
        }
        last_err = std::strerror(errno);
        ::close(fd);
    }
    freeaddrinfo(res);
    if (fd_ < 0) {
        *err = "connect " + arg + ": " + last_err;
        return false;
    }
    return true;
}

void NicBridge::close_conn(const char* why)
{
    warn_once(kLost, std::string("TCP connection ") + why + ": no more packets in or out");
    ::close(fd_);
    fd_ = -1;
    stream_closed_ = true;
    out_.clear();
    out_pos_ = 0;
}

void NicBridge::flush_stream()
{
    while (fd_ >= 0 && out_pos_ < out_.size()) {
        ssize_t n = ::send(fd_, out_.data() + out_pos_, out_.size() - out_pos_, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            out_pos_ += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        close_conn("lost");
        return;
    }
    if (out_pos_ == out_.size()) {
        out_.clear();
        out_pos_ = 0;
    }
}

void NicBridge::send(const std::vector<uint8_t>& pkt)
{
    switch (kind_) {
    case Kind::kNone:
        return;
    case Kind::kUdpConnect:
    case Kind::kUdpListen: {
        ssize_t n;
        if (kind_ == Kind::kUdpConnect) {
            n = ::send(fd_, pkt.data(), pkt.size(), MSG_DONTWAIT);
        } else {
            if (!peer_known_) {
                warn_once(kNoPeer, "TX packet dropped: no datagram received yet, so no peer to reply to");
                return;
            }
            n = ::sendto(fd_, pkt.data(), pkt.size(), MSG_DONTWAIT,
                         reinterpret_cast<const sockaddr*>(peer_addr_.data()),
                         static_cast<socklen_t>(peer_addr_.size()));
        }
        if (n < 0)
            warn_once(kSendErr, std::string("TX packet dropped: ") + std::strerror(errno));
        return;
    }
    case Kind::kTcpConnect:
    case Kind::kTcpListen:
        if (stream_closed_)
            return;
        if (out_.size() - out_pos_ + pkt.size() > kMaxTxBacklog) {
            warn_once(kBacklog, "TX packet dropped: the peer is not reading the stream");
            return;
        }
        if (fd_ < 0)
            warn_once(kNotConnected, "TX bytes kept until a TCP client connects");
        out_.insert(out_.end(), pkt.begin(), pkt.end());
        flush_stream();
        return;
    }
}

void NicBridge::poll()
{
    if (kind_ == Kind::kNone)
        return;
    if (kind_ == Kind::kTcpListen && fd_ < 0 && !stream_closed_) {
        int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c < 0)
            return;
        int one = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fd_ = c;
        ::close(listen_fd_);  // one connection only
        listen_fd_ = -1;
    }
    if (fd_ < 0)
        return;

    bool udp = kind_ == Kind::kUdpConnect || kind_ == Kind::kUdpListen;
    if (!udp)
        flush_stream();
    static uint8_t buf[65536];
    while (fd_ >= 0 && !rx_eof_ && rx_queue.size() < kMaxRxQueue) {
        if (udp) {
            sockaddr_storage from{};
            socklen_t flen = sizeof from;
            ssize_t n = ::recvfrom(fd_, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC,
                                   reinterpret_cast<sockaddr*>(&from), &flen);
            if (n < 0) {
                if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                    warn_once(kRecvErr, std::string("receive: ") + std::strerror(errno));
                return;
            }
            if (kind_ == Kind::kUdpListen) {
                const uint8_t* fp = reinterpret_cast<const uint8_t*>(&from);
                peer_addr_.assign(fp, fp + flen);
                peer_known_ = true;
            }
            if (n == 0) {
                warn_once(kEmpty, "empty datagram dropped (the NIC has no zero-length packets)");
                continue;
            }
            if (static_cast<size_t>(n) > kMaxPacket) {
                warn_once(kOversize, "datagram over 2048 bytes dropped");
                continue;
            }
            rx_queue.emplace_back(buf, buf + n);
        } else {
            ssize_t n = ::recv(fd_, buf, kMaxPacket, MSG_DONTWAIT);
            if (n > 0) {
                rx_queue.emplace_back(buf, buf + n);
                continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
                return;
            if (n == 0) {
                // The peer finished sending; it may still read what the firmware answers.
                rx_eof_ = true;
                warn_once(kClosed, "the peer closed its side of the TCP stream");
                return;
            }
            close_conn("lost");
        }
    }
}

}  // namespace node
