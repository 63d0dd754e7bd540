// Exit 0 when the installed Loom computes 3 * x + 1 correctly.
#include <loom/loom.hpp>

#include <cstdio>

int main() {
    loom::context ctx;
    loom::vector<int> x(ctx, std::vector<int>{1, 2, 3, 4});
    loom::vector<int> y(ctx, 4);
    y = 3 * x + 1;
    const auto out = y.to_host();
    std::printf("installed loom: %d %d %d %d\n", out[0], out[1], out[2], out[3]);
    return out == std::vector<int>{4, 7, 10, 13} ? 0 : 1;
}
