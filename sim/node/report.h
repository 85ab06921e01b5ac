// What a node simulation run measured, and its JSON report (written by hand: no JSON library).
#ifndef NODE_REPORT_H
#define NODE_REPORT_H

#include <cstdint>
#include <string>
#include <vector>

namespace node {

// Cycle counts over an interval: all cycles, those with the CPU asleep, those with the CPU asleep
// and the whole engine idle (the node waits for the network, a timer or the UART: time that
// depends on the peer, not on the node's work), and per engine block those with its busy bit set
// (index 0 aes, 1 sha, 2 pk, 3 gf2m, 4 dma, 5 ctrl, as engine_busy_o).
constexpr int kEngineBlocks = 6;
struct Counters {
    uint64_t cycles = 0;
    uint64_t sleep = 0;
    uint64_t idle = 0;
    uint64_t busy[kEngineBlocks] = {};
};

struct Phase {
    std::string name;
    uint64_t start = 0;
    Counters c;
};

struct Report {
    std::string elf;
    std::string core;           // "rv32i", "rv32im" or "rv32imc"
    bool engine = true;         // false: the SoC without the engine (soc_top ENGINE=0)
    std::string reason;         // exit, trap, bus_error, max_cycles, uart_eof, interrupted, bad_elf, ...
    bool has_exit_code = false;
    int32_t exit_code = 0;      // the firmware's SIM_EXIT value (reason "exit" only)
    int exit_status = 0;        // the simulator's process exit status
    std::string message;
    Counters total;
    std::vector<Phase> phases;  // in order of occurrence, same names not merged
    uint64_t uart_tx_bytes = 0;
    uint64_t nic_tx_packets = 0, nic_rx_packets = 0, nic_tx_bytes = 0, nic_rx_bytes = 0;
    uint64_t seed = 0;
    double wall_seconds = 0;

    // Writes the report; false (with errno set) when the file cannot be written.
    bool write_json(const std::string& path) const;
};

// s as a JSON string literal: quotes, backslashes and control characters escaped, invalid UTF-8
// bytes replaced by U+FFFD.
std::string json_string(const std::string& s);

}  // namespace node

#endif
