// Handwritten CUDA baselines for the element-wise suite (copy, scale, saxpy, triad, the issue 4
// chain), timed with CUDA events: median of 10 after a warm-up, best of several block sizes.
// Optional: built where nvcc exists, useful only where a GPU is. Prints one JSON object per
// line: {"workload", "n", "block", "median_us", "min_us", "max_us", "GB/s"}.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                                                                \
    do {                                                                                                           \
        const cudaError_t status = (call);                                                                         \
        if (status != cudaSuccess) {                                                                               \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(status));                                   \
            std::exit(1);                                                                                          \
        }                                                                                                          \
    } while (0)

__global__ void copy_kernel(const float* __restrict__ x, float* __restrict__ y, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, float a, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
__global__ void saxpy_kernel(const float* __restrict__ x, float* __restrict__ y, float a, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void triad_kernel(const float* __restrict__ b, const float* __restrict__ c, float* __restrict__ a, float s,
                             unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}
__global__ void chain4_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ z, float a,
                              unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float t = a * x[i] + y[i];
        z[i] = t * t - x[i];
    }
}

struct workload {
    const char* name;
    double bytes_per_element;
};

// Launches workload w over n elements with the given block size on buffers x, y, z.
void launch(int w, unsigned n, int block, const float* x, float* y, float* z) {
    const unsigned grid = (n + block - 1) / block;
    switch (w) {
    case 0: copy_kernel<<<grid, block>>>(x, z, n); break;
    case 1: scale_kernel<<<grid, block>>>(x, z, 2.5f, n); break;
    case 2: saxpy_kernel<<<grid, block>>>(x, y, 2.5f, n); break;
    case 3: triad_kernel<<<grid, block>>>(x, y, z, 2.5f, n); break;
    default: chain4_kernel<<<grid, block>>>(x, y, z, 2.5f, n); break;
    }
}

float reference(int w, float x, float y) {
    switch (w) {
    case 0: return x;
    case 1: return 2.5f * x;
    case 2: return 2.5f * x + y;
    case 3: return x + 2.5f * y;
    default: {
        const float t = 2.5f * x + y;
        return t * t - x;
    }
    }
}

int main(int argc, char** argv) {
    int max_log2 = argc > 1 ? std::atoi(argv[1]) : 26;
    const workload workloads[] = {{"copy", 8}, {"scale", 8}, {"saxpy", 12}, {"triad", 12}, {"issue4_chain4", 12}};
    const unsigned max_n = 1u << max_log2;
    std::vector<float> hx(max_n), hy(max_n), out(max_n);
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> dist(0.5f, 1.5f);
    for (unsigned i = 0; i < max_n; ++i) hx[i] = dist(gen), hy[i] = dist(gen);
    float *x, *y, *z;
    CHECK(cudaMalloc(&x, max_n * sizeof(float)));
    CHECK(cudaMalloc(&y, max_n * sizeof(float)));
    CHECK(cudaMalloc(&z, max_n * sizeof(float)));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int w = 0; w < 5; ++w) {
        for (int l = 10; l <= max_log2; l += 2) {
            const unsigned n = 1u << l;
            // Check: fresh inputs, poisoned output (0xff bytes are NaN), one launch.
            CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
            CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
            CHECK(cudaMemset(z, 0xff, n * sizeof(float)));
            launch(w, n, 256, x, y, z);
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(out.data(), w == 2 ? y : z, n * sizeof(float), cudaMemcpyDeviceToHost));
            for (unsigned i = 0; i < n; ++i) {
                const float want = reference(w, hx[i], hy[i]);
                if (!(std::fabs(out[i] - want) <= 1e-5f * std::fabs(want))) {
                    std::fprintf(stderr, "%s n=%u: element %u is %g, the host says %g\n", workloads[w].name, n, i,
                                 out[i], want);
                    return 1;
                }
            }
            double best_median = 1e30, best_min = 0, best_max = 0;
            int best_block = 0;
            for (int block : {128, 256, 512, 1024}) {
                launch(w, n, block, x, y, z); // warm-up
                std::vector<double> us;
                for (int r = 0; r < 10; ++r) {
                    CHECK(cudaEventRecord(start));
                    launch(w, n, block, x, y, z);
                    CHECK(cudaEventRecord(stop));
                    CHECK(cudaEventSynchronize(stop));
                    float ms = 0;
                    CHECK(cudaEventElapsedTime(&ms, start, stop));
                    us.push_back(ms * 1e3);
                }
                std::sort(us.begin(), us.end());
                const double median = us[us.size() / 2];
                if (median < best_median) {
                    best_median = median;
                    best_min = us.front();
                    best_max = us.back();
                    best_block = block;
                }
            }
            std::printf("{\"workload\": \"%s\", \"n\": %u, \"block\": %d, \"median_us\": %.3f, \"min_us\": %.3f, "
                        "\"max_us\": %.3f, \"GB/s\": %.2f}\n",
                        workloads[w].name, n, best_block, best_median, best_min, best_max,
                        workloads[w].bytes_per_element * n / (best_median * 1e3));
        }
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(z));
    return 0;
}
