// `node`: the cycle-accurate simulator of the whole node (Verilated rtl/soc/soc_top.sv: PicoRV32,
// memories, peripherals, the engine). Loads a firmware ELF into the ROM, runs it, bridges the
// UART to stdin/stdout and the NIC to a socket, and reports cycles per phase (see README.md).
//
// Speed is the point of the main loop: the model is evaluated once per half clock, the per-cycle
// bookkeeping is one histogram increment plus one OR of the strobe outputs, and every kind of
// host I/O happens only every kPollInterval cycles, never blocking.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <poll.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "Vsoc_top.h"
#include "verilated.h"
#if VM_TRACE_FST
#include "verilated_fst_c.h"
#endif

#include "elf_image.h"
#include "nic_bridge.h"
#include "report.h"

#ifndef NODE_RV32M
#error "build with -DNODE_RV32M=0 or 1 (the core configuration soc_top was Verilated with)"
#endif
#ifndef NODE_RVC
#error "build with -DNODE_RVC=0 or 1 (whether soc_top was Verilated with the C extension)"
#endif
#ifndef NODE_ENGINE
#error "build with -DNODE_ENGINE=0 or 1 (whether soc_top was Verilated with the engine)"
#endif

namespace {

using node::Counters;

constexpr uint64_t kPollInterval = 256;   // cycles between host I/O polls
constexpr int kResetCycles = 8;
constexpr uint64_t kDefaultMaxCycles = 100000000;
constexpr size_t kMaxPhaseName = 64;
constexpr size_t kStdinChunk = 4096;
constexpr size_t kMaxTxPacket = 65536;    // far beyond the NIC's 2048: only a broken stream gets here

// Process exit statuses (README.md).
constexpr int kStatusOk = 0, kStatusExitCode = 1, kStatusSetup = 2, kStatusTrap = 3, kStatusBusError = 4,
              kStatusBudget = 5, kStatusFinish = 6, kStatusInterrupted = 130;

volatile std::sig_atomic_t g_signal = 0;
void on_signal(int sig) { g_signal = sig; }

const char kUsage[] =
    "usage: node --elf FILE [--max-cycles N] [--uart-rx] [--nic MODE] [--seed N]\n"
    "            [--fst FILE] [--report FILE] [--profile FILE] [--quiet]\n"
    "  --elf FILE        RISC-V ELF32 firmware; its bytes with load addresses in ROM form the ROM\n"
    "  --max-cycles N    stop after N cycles (default 100000000, 0 = no limit)\n"
    "  --uart-rx         feed stdin to the UART receiver; the run ends after EOF once it is consumed\n"
    "  --nic MODE        udp-connect:HOST:PORT | udp-listen:PORT | tcp-connect:HOST:PORT | tcp-listen:PORT\n"
    "  --seed N          TRNG model seed (default: 8 bytes from /dev/urandom)\n"
    "  --fst FILE        dump waves (FST; runs the traced build <dir>-fst/node, make node-sim-fst)\n"
    "  --report FILE     JSON report at exit\n"
    "  --profile FILE    CPU-active cycles per fetch address and phase (tools/fwprofile.py reads it)\n"
    "  --quiet           no summary line on stderr\n"
    "UART output goes to stdout, nothing else does.\n";

struct Options {
    std::string elf, nic, fst, report, profile;
    uint64_t max_cycles = kDefaultMaxCycles;
    bool uart_rx = false, quiet = false, have_seed = false;
    uint64_t seed = 0;
};

bool parse_u64(const char* s, uint64_t* out)
{
    if (!s || !*s || *s == '-')
        return false;
    char* end;
    errno = 0;
    unsigned long long v = std::strtoull(s, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

class Sim {
public:
    Sim(const Options& o, const node::ElfImage& img, node::Report& rep) : opt_(o), img_(img), rep_(rep) {}

    // Builds the model, runs it to a stop and fills the report; returns the process exit status.
    int run(const std::string& rom_hex);

    node::NicBridge nic;

private:
    void tick_half(uint8_t clk)
    {
        top_->clk_i = clk;
        top_->eval();
#if VM_TRACE_FST
        if (tfp_)
            tfp_->dump(trace_time_);
        trace_time_ += 5;
#endif
    }
    void run_chunk(uint64_t end);
    void on_rx_fire(unsigned fire);
    void on_events();
    void poll_io();
    void feed_uart();
    void feed_nic();
    void marker(uint32_t addr);
    void close_phase();
    void stop(const char* reason, int status, const std::string& msg, bool print);
    Counters counters() const;

public:
    // --profile: lines "PHASE ADDRESS CYCLES" (the phase "-" outside phases), CPU-active cycles
    // counted against the address of the last instruction fetch; false if it cannot be written.
    bool write_profile(const std::string& path) const;

private:
    static constexpr uint32_t kProfWords = 1u << 15;  // the 128 KiB ROM, one counter per word
    std::map<std::string, std::vector<uint64_t>> prof_;
    uint64_t* prof_cur_ = nullptr;
    uint64_t* profile_for(const std::string& phase)
    {
        std::vector<uint64_t>& v = prof_[phase];
        v.resize(kProfWords);
        return v.data();
    }

    const Options& opt_;
    const node::ElfImage& img_;
    node::Report& rep_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vsoc_top> top_;
#if VM_TRACE_FST
    std::unique_ptr<VerilatedFstC> tfp_;
#endif
    uint64_t trace_time_ = 0;

    uint64_t cycle_ = 0;
    // Cycles by (cpu_sleep_o << 6 | engine_busy_o): the only per-cycle statistic; totals and
    // phases are sums over it.
    static constexpr unsigned kSleep = 1u << node::kEngineBlocks;
    uint64_t hist_[2 * kSleep] = {};
    bool stopped_ = false;

    bool in_phase_ = false;
    node::Phase phase_;
    Counters phase_base_;

    // UART RX: bytes read from stdin, the next one offered at upos_.
    std::vector<uint8_t> ubuf_;
    size_t upos_ = 0;
    bool stdin_eof_ = false;
    bool eof_delivered_ = false;     // EOF seen and every byte taken by the UART (as of the last poll)
    uint64_t idle_ref_cycle_ = 0;    // the uart_eof idle window: cycle and hist_[kSleep] at its start
    uint64_t idle_ref_count_ = 0;

    // NIC RX: the head packet of nic.rx_queue is offered from npos_.
    bool nfeeding_ = false;
    size_t npos_ = 0;
    std::vector<uint8_t> ntx_;
};

Counters Sim::counters() const
{
    Counters c;
    for (unsigned i = 0; i < 2 * kSleep; i++) {
        uint64_t n = hist_[i];
        c.cycles += n;
        if (i & kSleep)
            c.sleep += n;
        if (i == kSleep)
            c.idle += n;
        for (int b = 0; b < node::kEngineBlocks; b++)
            if (i & (1u << b))
                c.busy[b] += n;
    }
    return c;
}

void Sim::stop(const char* reason, int status, const std::string& msg, bool print)
{
    stopped_ = true;
    rep_.reason = reason;
    rep_.exit_status = status;
    rep_.message = msg;
    if (print) {
        std::fflush(stdout);
        std::fprintf(stderr, "node: %s\n", msg.c_str());
    }
}

void Sim::close_phase()
{
    if (!in_phase_)
        return;
    Counters now = counters();
    phase_.c.cycles = now.cycles - phase_base_.cycles;
    phase_.c.sleep = now.sleep - phase_base_.sleep;
    phase_.c.idle = now.idle - phase_base_.idle;
    for (int b = 0; b < node::kEngineBlocks; b++)
        phase_.c.busy[b] = now.busy[b] - phase_base_.busy[b];
    rep_.phases.push_back(phase_);
    in_phase_ = false;
    if (prof_cur_)
        prof_cur_ = profile_for("-");
}

bool Sim::write_profile(const std::string& path) const
{
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    for (const auto& [phase, v] : prof_)
        for (uint32_t i = 0; i < v.size(); i++)
            if (v[i])
                std::fprintf(f, "%s 0x%08x %llu\n", phase.c_str(), 4 * i, static_cast<unsigned long long>(v[i]));
    return std::fclose(f) == 0;
}

void Sim::marker(uint32_t addr)
{
    close_phase();
    if (addr == 0)
        return;
    std::string name;
    if (!img_.string_at(addr, kMaxPhaseName, &name)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "marker@0x%08x", addr);
        name = buf;
    }
    phase_ = node::Phase();
    phase_.name = name;
    phase_.start = cycle_;
    phase_base_ = counters();
    in_phase_ = true;
    if (prof_cur_)
        prof_cur_ = profile_for(name);
}

void Sim::feed_uart()
{
    top_->uart_rx_valid_i = upos_ < ubuf_.size();
    if (upos_ < ubuf_.size())
        top_->uart_rx_data_i = ubuf_[upos_];
}

void Sim::feed_nic()
{
    nfeeding_ = !nic.rx_queue.empty();
    top_->nic_rx_valid_i = nfeeding_;
    if (nfeeding_) {
        const std::vector<uint8_t>& p = nic.rx_queue.front();
        top_->nic_rx_data_i = p[npos_];
        top_->nic_rx_last_i = npos_ + 1 == p.size();
    } else {
        top_->nic_rx_last_i = 0;
    }
}

void Sim::on_rx_fire(unsigned fire)
{
    if (fire & 1) {
        upos_++;
        feed_uart();
    }
    if (fire & 2) {
        rep_.nic_rx_bytes++;
        if (++npos_ == nic.rx_queue.front().size()) {
            rep_.nic_rx_packets++;
            nic.rx_queue.pop_front();
            npos_ = 0;
        }
        feed_nic();
    }
}

void Sim::on_events()
{
    Vsoc_top& t = *top_;
    if (t.uart_tx_valid_o) {
        int c = t.uart_tx_data_o;
        std::fputc(c, stdout);
        if (c == '\n')
            std::fflush(stdout);
        rep_.uart_tx_bytes++;
    }
    if (t.nic_tx_valid_o) {
        ntx_.push_back(t.nic_tx_data_o);
        rep_.nic_tx_bytes++;
        if (t.nic_tx_last_o) {
            rep_.nic_tx_packets++;
            nic.send(ntx_);
            ntx_.clear();
        } else if (ntx_.size() > kMaxTxPacket) {
            ntx_.clear();  // a stream without `last`: keep memory bounded
        }
    }
    if (t.sim_marker_valid_o)
        marker(t.sim_marker_o);
    if (t.bus_err_o) {
        stop("bus_error", kStatusBusError,
             std::string("bus error: ") + (t.bus_err_we_o ? "write to " : "read from ") + hex32(t.bus_err_addr_o) +
                 " (pc " + hex32(t.cpu_pc_o) + ")",
             true);
    } else if (t.cpu_trap_o) {
        // PicoRV32 has fetched the next word before it traps: cpu_pc_o is usually the trapping
        // instruction + 4, so both are named. With the C extension instructions are 2 or 4 bytes
        // and fetches whole words: the trapping one is only known to lie around the last fetch.
        uint32_t pc = t.cpu_pc_o, insn;
        if (NODE_RVC) {
            stop("trap", kStatusTrap,
                 "cpu trap (illegal instruction or misaligned access) near pc " + hex32(pc) +
                     " (last fetch; compressed code: the instruction is in the word before it or at it)",
                 true);
            return;
        }
        std::string what = img_.word_at(pc - 4, &insn) ? "instruction " + hex32(insn) : "no instruction there in the ELF image";
        stop("trap", kStatusTrap,
             "cpu trap (illegal instruction or misaligned access) at pc " + hex32(pc - 4) + " (" + what +
                 "; last fetch " + hex32(pc) + ")",
             true);
    } else if (t.sim_exit_valid_o) {
        rep_.has_exit_code = true;
        rep_.exit_code = static_cast<int32_t>(t.sim_exit_code_o);
        stop("exit", rep_.exit_code == 0 ? kStatusOk : kStatusExitCode,
             "firmware exit code " + std::to_string(rep_.exit_code), false);
    }
}

void Sim::run_chunk(uint64_t end)
{
    Vsoc_top* const t = top_.get();
    while (cycle_ < end) {
        tick_half(0);
        // A byte moves at the rising edge when valid and ready are both high before it.
        unsigned fire = (t->uart_rx_valid_i & t->uart_rx_ready_o) | ((t->nic_rx_valid_i & t->nic_rx_ready_o) << 1);
        tick_half(1);
        ++cycle_;
        hist_[((t->cpu_sleep_o & 1u) ? kSleep : 0u) | (t->engine_busy_o & (kSleep - 1u))]++;
        if (prof_cur_ && !(t->cpu_sleep_o & 1u))
            prof_cur_[(t->cpu_pc_o >> 2) & (kProfWords - 1)]++;
        if (fire)
            on_rx_fire(fire);
        if (t->uart_tx_valid_o | t->nic_tx_valid_o | t->sim_marker_valid_o | t->sim_exit_valid_o | t->cpu_trap_o |
            t->bus_err_o) {
            on_events();
            if (stopped_)
                return;
        }
    }
}

void Sim::poll_io()
{
    if (g_signal) {
        stop("interrupted", kStatusInterrupted, "interrupted by signal " + std::to_string(g_signal), true);
        return;
    }
    if (ctx_->gotFinish()) {
        stop("finish", kStatusFinish, "the RTL called $finish", true);
        return;
    }
    if (opt_.uart_rx && upos_ == ubuf_.size()) {
        // The firmware has taken every byte: whatever it answered must reach the reader now (an
        // answer without a newline would otherwise wait in stdio's buffer while the reader waits
        // for it).
        std::fflush(stdout);
        if (!stdin_eof_) {
            pollfd p{0, POLLIN, 0};
            if (::poll(&p, 1, 0) == 1) {
                ubuf_.resize(kStdinChunk);
                ssize_t n = ::read(0, ubuf_.data(), kStdinChunk);
                if (n > 0) {
                    ubuf_.resize(static_cast<size_t>(n));
                } else {
                    ubuf_.clear();
                    if (n == 0 || (errno != EAGAIN && errno != EINTR))
                        stdin_eof_ = true;  // a read error ends the input like EOF
                }
                upos_ = 0;
                feed_uart();
            }
        } else {
            // Everything was delivered; the run ends once the CPU has slept, with the engine idle,
            // through one whole poll interval: the firmware waits for input that will not come.
            // (Ending right at the last delivered byte would lose the answer to it.)
            uint64_t idle = hist_[kSleep];
            if (eof_delivered_ && cycle_ - idle_ref_cycle_ > 0 && idle - idle_ref_count_ == cycle_ - idle_ref_cycle_) {
                stop("uart_eof", kStatusOk, "end of UART input: stdin reached EOF and the firmware consumed it", !opt_.quiet);
                return;
            }
            eof_delivered_ = true;
            idle_ref_cycle_ = cycle_;
            idle_ref_count_ = idle;
        }
    }
    if (!opt_.nic.empty()) {
        nic.poll();
        if (!nfeeding_ && !nic.rx_queue.empty()) {
            npos_ = 0;
            feed_nic();
        }
    }
}

int Sim::run(const std::string& rom_hex)
{
    ctx_ = std::make_unique<VerilatedContext>();
    std::string plus = "+rom=" + rom_hex;
    const char* argv[] = {"node", plus.c_str()};
    ctx_->commandArgs(2, argv);
#if VM_TRACE_FST
    if (!opt_.fst.empty())
        ctx_->traceEverOn(true);
#endif
    top_ = std::make_unique<Vsoc_top>(ctx_.get(), "TOP");
    if (!opt_.profile.empty())
        prof_cur_ = profile_for("-");
#if VM_TRACE_FST
    if (!opt_.fst.empty()) {
        tfp_ = std::make_unique<VerilatedFstC>();
        top_->trace(tfp_.get(), 99);
        tfp_->open(opt_.fst.c_str());
    }
#endif
    Vsoc_top& t = *top_;
    t.clk_i = 0;
    t.rst_ni = 0;
    t.uart_rx_valid_i = 0;
    t.uart_rx_data_i = 0;
    t.nic_tx_ready_i = 1;  // the host takes every TX byte at once
    t.nic_rx_valid_i = 0;
    t.nic_rx_data_i = 0;
    t.nic_rx_last_i = 0;
    t.trng_seed_i = opt_.seed;
    tick_half(0);
    std::remove(rom_hex.c_str());  // $readmemh ran in the first eval
    for (int i = 0; i < kResetCycles; i++) {
        tick_half(1);
        tick_half(0);
    }
    t.rst_ni = 1;

    const uint64_t budget = opt_.max_cycles ? opt_.max_cycles : UINT64_MAX;
    auto t0 = std::chrono::steady_clock::now();
    while (!stopped_) {
        uint64_t end = std::min(budget, (cycle_ / kPollInterval + 1) * kPollInterval);
        run_chunk(end);
        if (stopped_)
            break;
        if (cycle_ >= budget) {
            stop("max_cycles", kStatusBudget,
                 "cycle budget of " + std::to_string(opt_.max_cycles) + " exceeded (pc " + hex32(t.cpu_pc_o) + ")", true);
            break;
        }
        poll_io();
    }
    rep_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    close_phase();
    rep_.total = counters();
    std::fflush(stdout);
#if VM_TRACE_FST
    if (tfp_)
        tfp_->close();
#endif
    top_->final();
    return rep_.exit_status;
}

// Ends a run that could not start: one line on stderr, the report if asked for, status 2.
int setup_error(node::Report& rep, const Options& o, const char* reason, const std::string& msg)
{
    std::fprintf(stderr, "node: %s\n", msg.c_str());
    rep.reason = reason;
    rep.message = msg;
    rep.exit_status = kStatusSetup;
    if (!o.report.empty() && !rep.write_json(o.report))
        std::fprintf(stderr, "node: cannot write report %s: %s\n", o.report.c_str(), std::strerror(errno));
    return kStatusSetup;
}

#if !VM_TRACE_FST
// The traced build of this simulator: /path/<name>-fst/node for /path/<name>/node (this
// executable, from /proc/self/exe), or "" when that cannot be found out.
std::string traced_twin()
{
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return "";
    std::string self(buf, static_cast<size_t>(n));
    size_t slash = self.rfind('/');
    if (slash == std::string::npos || slash == 0)
        return "";
    return self.substr(0, slash) + "-fst" + self.substr(slash);
}
#endif

}  // namespace

int main(int argc, char** argv)
{
    Options o;
    node::Report rep;
    rep.core = std::string(NODE_RV32M ? "rv32im" : "rv32i") + (NODE_RVC ? "c" : "");
    rep.engine = NODE_ENGINE != 0;

    std::string usage_err;
    // Every argument is parsed even after an error, so --report still gets the "usage" report.
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i], val;
        bool has_val = false;
        size_t eq = a.find('=');
        if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
            val = a.substr(eq + 1);
            a = a.substr(0, eq);
            has_val = true;
        }
        auto need = [&](std::string* out) {
            if (has_val) {
                *out = val;
            } else if (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
                *out = argv[++i];  // (a value starting with "--" needs the --opt=value form)
            } else {
                if (usage_err.empty())
                    usage_err = a + " needs a value";
                return false;
            }
            return true;
        };
        std::string v;
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a == "--elf") {
            need(&o.elf);
        } else if (a == "--nic") {
            need(&o.nic);
        } else if (a == "--fst") {
            need(&o.fst);
        } else if (a == "--report") {
            need(&o.report);
        } else if (a == "--profile") {
            need(&o.profile);
        } else if (a == "--max-cycles") {
            if (need(&v) && !parse_u64(v.c_str(), &o.max_cycles) && usage_err.empty())
                usage_err = "bad --max-cycles value '" + v + "'";
        } else if (a == "--seed") {
            if (need(&v) && !parse_u64(v.c_str(), &o.seed) && usage_err.empty())
                usage_err = "bad --seed value '" + v + "'";
            o.have_seed = true;
        } else if ((a == "--uart-rx" || a == "--quiet") && !has_val) {
            (a == "--quiet" ? o.quiet : o.uart_rx) = true;
        } else if (usage_err.empty()) {
            usage_err = std::string("unknown argument '") + argv[i] + "'";
        }
    }
    if (usage_err.empty() && o.elf.empty())
        usage_err = "--elf FILE is required";
#if !VM_TRACE_FST
    // The plain build has no tracing (it would cost a fifth of the speed); its traced twin,
    // <dir>-fst/node beside this binary's <dir>/node (`make node-sim-fst`), runs a --fst run.
    if (usage_err.empty() && !o.fst.empty()) {
        std::string twin = traced_twin();
        if (!twin.empty() && ::access(twin.c_str(), X_OK) == 0) {
            ::execv(twin.c_str(), argv);
            usage_err = "--fst: cannot run " + twin + ": " + std::strerror(errno);
        } else {
            usage_err = "--fst: this build has no FST tracing and its traced twin " +
                        (twin.empty() ? std::string("<dir>-fst/node") : twin) +
                        " is not built (make node-sim-fst)";
        }
    }
#endif
    rep.elf = o.elf;
    if (!usage_err.empty()) {
        int st = setup_error(rep, o, "usage", usage_err);
        std::fputs("usage: node --elf FILE [options]   (node --help lists them)\n", stderr);
        return st;
    }

    node::ElfImage img;
    std::string err;
    if (!img.load(o.elf, &err))
        return setup_error(rep, o, "bad_elf", "bad ELF " + o.elf + ": " + err);

    if (!o.have_seed) {
        int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        uint8_t b[8] = {};
        if (fd < 0 || ::read(fd, b, 8) != 8)
            return setup_error(rep, o, "setup_error", "cannot read /dev/urandom for the TRNG seed");
        ::close(fd);
        for (int k = 0; k < 8; k++)
            o.seed = (o.seed << 8) | b[k];
    }
    rep.seed = o.seed;

    std::signal(SIGPIPE, SIG_IGN);  // a closed stdout or socket must not kill the run silently
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    std::setvbuf(stdout, nullptr, _IOFBF, 1 << 16);

    Sim sim(o, img, rep);
    sim.nic.quiet = o.quiet;
    if (!o.nic.empty()) {
        if (!sim.nic.open(o.nic, &err))
            return setup_error(rep, o, "setup_error", "nic: " + err);
        // With PORT 0 the kernel picks the port: tell it, whatever --quiet says, or nobody can connect.
        if (sim.nic.bound_port() && o.nic.size() >= 2 && o.nic.compare(o.nic.size() - 2, 2, ":0") == 0) {
            std::fprintf(stderr, "node: nic listening on 127.0.0.1:%d\n", sim.nic.bound_port());
            std::fflush(stderr);
        }
    }

    const char* tmpdir = std::getenv("TMPDIR");
    std::string hex = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/node-rom-XXXXXX.hex";
    int fd = ::mkstemps(&hex[0], 4);
    if (fd < 0)
        return setup_error(rep, o, "setup_error", "cannot create the ROM file " + hex + ": " + std::strerror(errno));
    ::close(fd);
    if (!img.write_hex(hex)) {
        std::remove(hex.c_str());
        return setup_error(rep, o, "setup_error", "cannot write the ROM file " + hex);
    }

    int status = sim.run(hex);
    if (!o.profile.empty() && !sim.write_profile(o.profile))
        std::fprintf(stderr, "node: cannot write profile %s: %s\n", o.profile.c_str(), std::strerror(errno));

    if (!o.report.empty() && !rep.write_json(o.report))
        std::fprintf(stderr, "node: cannot write report %s: %s\n", o.report.c_str(), std::strerror(errno));
    if (!o.quiet) {
        double pct = rep.total.cycles ? 100.0 * static_cast<double>(rep.total.sleep) / static_cast<double>(rep.total.cycles) : 0.0;
        double cps = rep.wall_seconds > 0 ? static_cast<double>(rep.total.cycles) / rep.wall_seconds : 0.0;
        std::string why = rep.reason;
        if (rep.has_exit_code)
            why += " " + std::to_string(rep.exit_code);
        std::fprintf(stderr, "node: %s after %llu cycles, %.1f%% asleep, %.2f M cycles/s (%s)\n", why.c_str(),
                     static_cast<unsigned long long>(rep.total.cycles), pct, cps / 1e6, rep.core.c_str());
    }
    return status;
}
