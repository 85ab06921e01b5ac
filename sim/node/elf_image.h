// The node's code memory as the simulator sees it: a RISC-V ELF32 reduced to a 128 KiB ROM image
// (every loadable byte has its load address in ROM; the firmware copies .data to RAM itself), plus
// the segment map so a RAM address of initialised data can still be read from the image.
#ifndef NODE_ELF_IMAGE_H
#define NODE_ELF_IMAGE_H

#include <cstdint>
#include <string>
#include <vector>

namespace node {

// The node's memory map (rtl/soc/memmap.toml): only ROM and RAM may hold segments.
constexpr uint32_t kRomBase = 0x00000000u;
constexpr uint32_t kRomSize = 128u * 1024u;
constexpr uint32_t kRamBase = 0x10000000u;
constexpr uint32_t kRamSize = 64u * 1024u;

class ElfImage {
public:
    // Reads and checks FILE; on failure returns false with a short reason in *err
    // ("not an ELF file", "truncated ...", ...), the ROM image then being unspecified.
    bool load(const std::string& path, std::string* err);

    // The ROM as $readmemh input: one 32-bit little-endian word per line, word 0 first.
    bool write_hex(const std::string& path) const;

    // The initial value of the byte at a run-time address: a ROM address directly, a RAM address
    // through the segment that is copied there (vaddr -> paddr). False when the image has no
    // byte for the address.
    bool byte_at(uint32_t addr, uint8_t* out) const;
    bool word_at(uint32_t addr, uint32_t* out) const;

    // The NUL-terminated string at addr (at most max_len characters, printable ASCII only);
    // false when it does not resolve to one.
    bool string_at(uint32_t addr, size_t max_len, std::string* out) const;

    const std::vector<uint8_t>& rom() const { return rom_; }

private:
    struct Segment {
        uint32_t vaddr, paddr, filesz;
    };
    std::vector<uint8_t> rom_ = std::vector<uint8_t>(kRomSize, 0);
    std::vector<Segment> segs_;
};

}  // namespace node

#endif
