// The header every stored binary carries: it names the entry's key and the hash of the source it
// was compiled from, and the payload's size and hash. meta.json's checksums say a file is whole;
// the envelope says it belongs to this entry, so a binary swapped in from another entry (with
// meta.json rewritten to agree) or cut short is refused before a driver ever sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom::cache {

struct key;

// header + payload, as written to binary.bin / .cubin / .ptx.
std::vector<unsigned char> wrap_binary(const key& k, std::uint64_t source_xxh3,
                                       const std::vector<unsigned char>& payload);
// The payload of `file` when its header names key k and source hash source_xxh3 and the payload
// is whole; otherwise empty, with `problem` saying why.
// How many bytes of a stored binary's start say which entry it belongs to.
inline constexpr std::size_t key_header_bytes = 24;
// Whether `file_start` (a stored binary's first key_header_bytes or more) is Loom's header and
// names key k: the evidence that Loom wrote an entry whose metadata is damaged.
bool header_names_key(std::string_view file_start, const key& k);
std::vector<unsigned char> unwrap_binary(std::string_view file, const key& k, std::uint64_t source_xxh3,
                                         std::string& problem);

} // namespace loom::cache
