// Exit 0 when the installed Loom computes 3 * x + 1 correctly and its headers and library agree
// on the version.
#include <loom/loom.hpp>
#include <loom/version.hpp>

#include <cstdio>
#include <cstring>

int main() {
    if (std::strcmp(loom::version(), LOOM_VERSION_STRING) != 0) {
        std::printf("installed loom: the library is %s, the headers %s\n", loom::version(), LOOM_VERSION_STRING);
        return 1;
    }
    loom::context ctx;
    loom::vector<int> x(ctx, std::vector<int>{1, 2, 3, 4});
    loom::vector<int> y = 3 * x + 1;
    const auto out = y.to_host();
    std::printf("installed loom %s: %d %d %d %d\n", loom::version(), out[0], out[1], out[2], out[3]);
    return out == std::vector<int>{4, 7, 10, 13} ? 0 : 1;
}
