// ELF32 loader for the node simulator: checks the header and program headers by hand (no libelf:
// the format is small and every check should give the user a precise reason) and builds the ROM.
#include "elf_image.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace node {

namespace {

constexpr uint16_t kEmRiscv = 243;
constexpr uint32_t kPtLoad = 1;
constexpr size_t kEhdrSize = 52;
constexpr size_t kPhdrSize = 32;
// Larger than any firmware that fits in 128 KiB of ROM plus generous debug info.
constexpr long kMaxFileSize = 256L * 1024 * 1024;

uint16_t rd16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t rd32(const uint8_t* p)
{
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
           (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

// [addr, addr+len) inside [base, base+size), without 32-bit wrap-around.
bool within(uint32_t addr, uint32_t len, uint32_t base, uint32_t size)
{
    uint64_t a = addr, e = static_cast<uint64_t>(addr) + len;
    return a >= base && e <= static_cast<uint64_t>(base) + size;
}

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

std::string range(uint32_t addr, uint32_t len)
{
    return hex32(addr) + ".." + hex32(static_cast<uint32_t>(addr + (len ? len - 1 : 0)));
}

}  // namespace

bool ElfImage::load(const std::string& path, std::string* err)
{
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        *err = std::strerror(errno);
        return false;
    }
    std::vector<uint8_t> data;
    bool too_big = false;
    {
        uint8_t buf[65536];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
            data.insert(data.end(), buf, buf + n);
            if (data.size() > static_cast<size_t>(kMaxFileSize)) {
                too_big = true;
                break;
            }
        }
        if (std::ferror(f)) {
            *err = std::string("read error: ") + std::strerror(errno);
            std::fclose(f);
            return false;
        }
    }
    std::fclose(f);
    if (too_big) {
        *err = "file larger than 256 MiB";
        return false;
    }

    const uint8_t* d = data.data();
    const size_t size = data.size();
    if (size < 4 || std::memcmp(d, "\x7f" "ELF", 4) != 0) {
        *err = size == 0 ? "empty file" : "not an ELF file (bad magic)";
        return false;
    }
    if (size < kEhdrSize) {
        *err = "truncated (ELF header)";
        return false;
    }
    if (d[4] != 1) {
        *err = d[4] == 2 ? "ELF64 file: the node needs ELF32 (rv32)" : "bad ELF class";
        return false;
    }
    if (d[5] != 1) {
        *err = "not little-endian";
        return false;
    }
    uint16_t machine = rd16(d + 18);
    if (machine != kEmRiscv) {
        *err = "machine " + std::to_string(machine) + " is not RISC-V (243)";
        return false;
    }
    uint32_t phoff = rd32(d + 28);
    uint16_t phentsize = rd16(d + 42), phnum = rd16(d + 44);
    if (phnum == 0) {
        *err = "no program headers (not an executable?)";
        return false;
    }
    if (phentsize != kPhdrSize) {
        *err = "unexpected program header size " + std::to_string(phentsize);
        return false;
    }
    if (static_cast<uint64_t>(phoff) + static_cast<uint64_t>(phnum) * kPhdrSize > size) {
        *err = "truncated (program headers)";
        return false;
    }

    size_t loaded = 0;
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t* ph = d + phoff + i * kPhdrSize;
        if (rd32(ph) != kPtLoad)
            continue;
        uint32_t offset = rd32(ph + 4), vaddr = rd32(ph + 8), paddr = rd32(ph + 12);
        uint32_t filesz = rd32(ph + 16), memsz = rd32(ph + 20);
        std::string seg = "segment " + std::to_string(i);
        if (filesz == 0 && memsz == 0)
            continue;
        if (filesz > memsz) {
            *err = seg + ": file size larger than memory size";
            return false;
        }
        if (static_cast<uint64_t>(offset) + filesz > size) {
            *err = "truncated (" + seg + " data)";
            return false;
        }
        // Where the segment lives at run time (vaddr), and where its bytes are loaded from (paddr).
        bool run_ok = within(vaddr, memsz, kRomBase, kRomSize) || within(vaddr, memsz, kRamBase, kRamSize);
        if (!run_ok) {
            *err = seg + " at " + range(vaddr, memsz) + " is outside ROM and RAM";
            return false;
        }
        if (filesz == 0)
            continue;  // .bss-like: zeroed by the start-up code, nothing to load
        if (!within(paddr, filesz, kRomBase, kRomSize)) {
            if (within(paddr, filesz, kRamBase, kRamSize))
                *err = seg + " has initialised bytes with load address " + range(paddr, filesz) +
                       " in RAM: only ROM is loaded (put the load address in ROM, AT> ROM)";
            else
                *err = seg + " load address " + range(paddr, filesz) + " is outside ROM and RAM";
            return false;
        }
        std::memcpy(rom_.data() + (paddr - kRomBase), d + offset, filesz);
        segs_.push_back({vaddr, paddr, filesz});
        loaded += filesz;
    }
    if (loaded == 0) {
        *err = "no loadable bytes";
        return false;
    }
    return true;
}

bool ElfImage::write_hex(const std::string& path) const
{
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(rom_.size() / 4 * 9);
    for (size_t i = 0; i < rom_.size(); i += 4) {
        uint32_t w = rd32(rom_.data() + i);
        for (int s = 28; s >= 0; s -= 4)
            out.push_back(digits[(w >> s) & 15]);
        out.push_back('\n');
    }
    bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
    return (std::fclose(f) == 0) && ok;
}

bool ElfImage::byte_at(uint32_t addr, uint8_t* out) const
{
    if (within(addr, 1, kRomBase, kRomSize)) {
        *out = rom_[addr - kRomBase];
        return true;
    }
    for (const Segment& s : segs_) {
        if (addr >= s.vaddr && addr - s.vaddr < s.filesz) {
            *out = rom_[s.paddr + (addr - s.vaddr) - kRomBase];
            return true;
        }
    }
    return false;
}

bool ElfImage::word_at(uint32_t addr, uint32_t* out) const
{
    uint8_t b[4];
    for (uint32_t i = 0; i < 4; i++)
        if (!byte_at(addr + i, &b[i]))
            return false;
    *out = rd32(b);
    return true;
}

bool ElfImage::string_at(uint32_t addr, size_t max_len, std::string* out) const
{
    out->clear();
    for (size_t i = 0; i <= max_len; i++) {
        uint8_t c;
        if (!byte_at(static_cast<uint32_t>(addr + i), &c))
            return false;
        if (c == 0)
            return !out->empty();
        if (c < 0x20 || c > 0x7e)
            return false;
        if (i == max_len)
            return true;  // longer than max_len: truncated
        out->push_back(static_cast<char>(c));
    }
    return true;
}

}  // namespace node
