// The one reader of the process environment: every variable Loom reads goes through these
// functions (environment.cpp is the only file that reads the environment itself), so that a
// switch is spelled the same way everywhere and a value Loom cannot use is refused by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "loom/error.hpp"

namespace loom::environment {

// Every variable Loom reads, where, and when. A variable read "per context" is read again for
// each context made, so a change between two contexts applies to the second; an empty variable
// counts as unset everywhere. README.md's Environment table is the user's view of the same list.
//
//   LOOM_BACKEND, LOOM_DEVICE  the device a context opens (context_options::backend, ::device
//                              win), and the default loom::devices() marks. Per context and per
//                              devices() call (runtime/context.cpp, runtime/devices.cpp);
//                              backend/select.cpp refuses an unknown backend.
//   LOOM_BALANCE               fixed (default) or dynamic: how a context over several devices
//                              shares its vectors (context_options::balance).
//   LOOM_FUSION                switch, default on: fuse statements into kernels.
//   LOOM_TUNE                  switch, default off: measure launch geometries at a kernel's first
//                              large launch.
//   LOOM_FP_CONTRACT           switch, default off: let a * b + c become an fma.
//   LOOM_PROFILE               switch, default off: time every kernel on the device.
//                              The four switches: per context, unless context_options gives one
//                              (runtime/context.cpp); any other value is a loom::error.
//   LOOM_KERNEL_FORM           auto (default), chunked or grid_stride; per context
//                              (launch/policy.cpp); anything else is a loom::error.
//   LOOM_COMPILE_THREADS       1 to 1024 kernels compiled at once (default: the hardware's
//                              threads); per context (cache/program_cache.cpp); else a loom::error.
//   LOOM_CACHE                 readwrite (default), read or off; per context (cache/disk_cache.cpp);
//                              anything else is a loom::error.
//   LOOM_CACHE_DIR             the disk cache's directory, else $XDG_CACHE_HOME/loom (an absolute
//   XDG_CACHE_HOME, HOME       XDG_CACHE_HOME only), else $HOME/.cache/loom; per context and per
//                              loom-cache run (cache/disk_cache.cpp).
//   LOOM_CACHE_MAX_BYTES       the disk cache's size limit, bytes with an optional K, M or G;
//                              per context (cache/disk_cache.cpp); anything else is a loom::error.
//   LOOM_DUMP_SOURCE           off (a switch's off, the default), stderr (or a switch's on), or a
//                              directory for each compiled kernel's source; stdout is a
//                              loom::error. Per context (cache/source_dump.cpp).
//   LOOM_LOG                   the log channels: fusion, compile, cache, launch, all (a switch's
//                              off: none); an unknown name is a warning.
//   LOOM_LOG_FILE              where the log goes instead of stderr; a file that cannot be opened
//                              is a warning. Both log variables: once per process, at the first
//                              log test, and again at logging::reload_from_environment
//                              (support/log.cpp).
//   LOOM_CLBLAST_LIBRARY       the file loom::matmul opens as CLBlast, and
//   LOOM_CUBLAS_LIBRARY        as cuBLAS: once per process, at the first matmul on that backend
//                              (blas/clblast_loader.cpp, blas/cublas_loader.cpp).

// The variable's value; nullopt when it is unset or empty.
std::optional<std::string> text(const char* name);

// A switch's words, in any case: on, 1, true give true; off, 0, false give false;
// anything else gives nullopt.
std::optional<bool> switch_word(std::string_view word);

// The loom::error for a value a variable does not take, in the one form every such message has:
// "NAME='value' is not <what>: <advice>".
error refusal(const char* name, std::string_view value, std::string_view what, std::string_view advice);

// A switch: `fallback` when unset or empty, else its word (switch_word); any other value throws
// a refusal that names every spelling ("use on (or 1, true) to ..., or off (or 0, false; the
// default)"). `on_means` and `off_means` finish "use on ..." and
// "or off ..." in it ("to fuse statements into kernels"); either may be empty.
bool flag(const char* name, bool fallback, std::string_view what, std::string_view on_means,
          std::string_view off_means);

// A whole number from `least` to `most`, in decimal digits; nullopt when unset or empty; any
// other value throws a refusal with `what` and `advice`.
std::optional<std::uint64_t> whole_number(const char* name, std::uint64_t least, std::uint64_t most,
                                          std::string_view what, std::string_view advice);

} // namespace loom::environment
