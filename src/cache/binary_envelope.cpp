// The stored binary's header (binary_envelope.hpp): "LOOMBIN" and a format byte, then the key's
// two halves, the source's XXH3-64, the payload's size and its XXH3-64, 8 bytes each in the
// machine's byte order (a cache directory serves the machine that wrote it).
#include "cache/binary_envelope.hpp"

#include <xxhash.h>

#include <cstring>

#include "cache/disk_cache.hpp"

namespace loom::cache {
namespace {

constexpr char magic[8] = {'L', 'O', 'O', 'M', 'B', 'I', 'N', '1'};
constexpr std::size_t header_bytes = 8 + 5 * 8;

void put(std::vector<unsigned char>& out, std::uint64_t v) {
    unsigned char bytes[8];
    std::memcpy(bytes, &v, 8);
    out.insert(out.end(), bytes, bytes + 8);
}

std::uint64_t get(std::string_view file, std::size_t at) {
    std::uint64_t v = 0;
    std::memcpy(&v, file.data() + at, 8);
    return v;
}

} // namespace

std::vector<unsigned char> wrap_binary(const key& k, std::uint64_t source_xxh3,
                                       const std::vector<unsigned char>& payload) {
    std::vector<unsigned char> out(magic, magic + 8);
    out.reserve(header_bytes + payload.size());
    put(out, k.high);
    put(out, k.low);
    put(out, source_xxh3);
    put(out, payload.size());
    put(out, XXH3_64bits(payload.data(), payload.size()));
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

bool header_names_key(std::string_view file_start, const key& k) {
    return file_start.size() >= key_header_bytes && std::memcmp(file_start.data(), magic, 8) == 0 &&
           get(file_start, 8) == k.high && get(file_start, 16) == k.low;
}

std::vector<unsigned char> unwrap_binary(std::string_view file, const key& k, std::uint64_t source_xxh3,
                                         std::string& problem) {
    if (file.size() < header_bytes || std::memcmp(file.data(), magic, 8) != 0) {
        problem = "the binary has no Loom header: not written by this Loom";
        return {};
    }
    if (get(file, 8) != k.high || get(file, 16) != k.low) {
        problem = "the binary belongs to another entry (its header names another key)";
        return {};
    }
    if (get(file, 24) != source_xxh3) {
        problem = "the binary was compiled from another source (its header names another source hash)";
        return {};
    }
    const std::string_view payload = file.substr(header_bytes);
    if (get(file, 32) != payload.size() || get(file, 40) != XXH3_64bits(payload.data(), payload.size())) {
        problem = "the binary is damaged (its payload does not match its header)";
        return {};
    }
    return std::vector<unsigned char>(payload.begin(), payload.end());
}

} // namespace loom::cache
