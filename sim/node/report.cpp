// JSON report of a node simulation run (the format is listed in sim/node/README.md).
#include "report.h"

#include <cstdio>
#include <map>

namespace node {

namespace {

const char* const kBlocks[kEngineBlocks] = {"aes", "sha", "pk", "gf2m", "dma", "ctrl"};

// Length of the valid UTF-8 sequence at s[i] (1..4), or 0 when the bytes there are not one.
size_t utf8_len(const std::string& s, size_t i)
{
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        n = 2;
        min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    unsigned cp = c & (0x7f >> n);
    for (size_t k = 1; k < n; k++) {
        unsigned char cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

std::string counters_json(const Counters& c)
{
    std::string s;
    s += "\"cycles\": " + std::to_string(c.cycles);
    s += ", \"cpu_active_cycles\": " + std::to_string(c.cycles - c.sleep);
    s += ", \"cpu_sleep_cycles\": " + std::to_string(c.sleep);
    s += ", \"idle_cycles\": " + std::to_string(c.idle);
    s += ", \"engine_busy_cycles\": {";
    for (int b = 0; b < kEngineBlocks; b++)
        s += std::string(b ? ", " : "") + "\"" + kBlocks[b] + "\": " + std::to_string(c.busy[b]);
    s += "}";
    return s;
}

}  // namespace

std::string json_string(const std::string& s)
{
    std::string o = "\"";
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        size_t n = utf8_len(s, i);
        if (n == 0) {
            o += "\\ufffd";
            i++;
            continue;
        }
        if (n > 1) {
            o.append(s, i, n);
            i += n;
            continue;
        }
        switch (c) {
        case '"': o += "\\\""; break;
        case '\\': o += "\\\\"; break;
        case '\n': o += "\\n"; break;
        case '\r': o += "\\r"; break;
        case '\t': o += "\\t"; break;
        case '\b': o += "\\b"; break;
        case '\f': o += "\\f"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                o += buf;
            } else {
                o.push_back(static_cast<char>(c));
            }
        }
        i++;
    }
    return o + "\"";
}

bool Report::write_json(const std::string& path) const
{
    std::string j = "{\n";
    j += "  \"elf\": " + json_string(elf) + ",\n";
    j += "  \"core\": " + json_string(core) + ",\n";
    j += std::string("  \"engine\": ") + (engine ? "true" : "false") + ",\n";
    j += "  \"reason\": " + json_string(reason) + ",\n";
    j += "  \"exit_code\": " + (has_exit_code ? std::to_string(exit_code) : std::string("null")) + ",\n";
    j += "  \"exit_status\": " + std::to_string(exit_status) + ",\n";
    j += "  \"message\": " + json_string(message) + ",\n";
    j += "  " + counters_json(total) + ",\n";
    j += "  \"icache\": \"none\",\n";
    j += "  \"icache_misses\": null,\n";

    j += "  \"phases\": [";
    for (size_t i = 0; i < phases.size(); i++) {
        const Phase& p = phases[i];
        j += std::string(i ? "," : "") + "\n    {\"name\": " + json_string(p.name) +
             ", \"start\": " + std::to_string(p.start) + ", " + counters_json(p.c) + "}";
    }
    j += phases.empty() ? "],\n" : "\n  ],\n";

    // Totals by name, in order of first occurrence.
    std::vector<std::string> order;
    std::map<std::string, std::pair<uint64_t, Counters>> sums;
    for (const Phase& p : phases) {
        auto it = sums.find(p.name);
        if (it == sums.end()) {
            order.push_back(p.name);
            it = sums.emplace(p.name, std::make_pair(uint64_t{0}, Counters{})).first;
        }
        Counters& t = it->second.second;
        it->second.first++;
        t.cycles += p.c.cycles;
        t.sleep += p.c.sleep;
        t.idle += p.c.idle;
        for (int b = 0; b < kEngineBlocks; b++)
            t.busy[b] += p.c.busy[b];
    }
    j += "  \"phase_totals\": {";
    for (size_t i = 0; i < order.size(); i++) {
        const auto& e = sums[order[i]];
        j += std::string(i ? "," : "") + "\n    " + json_string(order[i]) + ": {\"count\": " +
             std::to_string(e.first) + ", " + counters_json(e.second) + "}";
    }
    j += order.empty() ? "},\n" : "\n  },\n";

    j += "  \"uart_tx_bytes\": " + std::to_string(uart_tx_bytes) + ",\n";
    j += "  \"nic\": {\"tx_packets\": " + std::to_string(nic_tx_packets) +
         ", \"rx_packets\": " + std::to_string(nic_rx_packets) +
         ", \"tx_bytes\": " + std::to_string(nic_tx_bytes) +
         ", \"rx_bytes\": " + std::to_string(nic_rx_bytes) + "},\n";
    j += "  \"seed\": " + std::to_string(seed) + ",\n";
    char buf[96];
    std::snprintf(buf, sizeof buf, "  \"wall_seconds\": %.6f,\n  \"sim_cycles_per_s\": %.0f\n", wall_seconds,
                  wall_seconds > 0 ? static_cast<double>(total.cycles) / wall_seconds : 0.0);
    j += buf;
    j += "}\n";

    FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    bool ok = std::fwrite(j.data(), 1, j.size(), f) == j.size();
    return (std::fclose(f) == 0) && ok;
}

}  // namespace node
