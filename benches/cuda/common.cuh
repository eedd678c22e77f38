// What the plain-CUDA benchmarks share (bounds.cu, peers.cu): checked CUDA calls, the
// timing method of ../../shared/ANCHORS.md (median of 15 timed calls after 2 warm-ups,
// CUDA events), mgpu-bench's input generators (a port of benches/src/lib.rs's `Rng`,
// `CountDist` and `counts_covering`, bit-identical), and the minimal-traffic kernels of
// the `bound` rows.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e = (x);                                                               \
        if (e) {                                                                           \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

// Median time of f() in ms over 15 calls after 2 warm-ups.
template <class F> float median_ms(F&& f) {
    std::vector<float> t;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 17; i++) {
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (i >= 2) t.push_back(ms);
    }
    CK(cudaGetLastError());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// ---- mgpu-bench's inputs (benches/src/lib.rs), bit for bit ------------------------------

// splitmix64, as `mgpu_benches::Rng`.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed) {}
    uint64_t next_u64() {
        s += 0x9E3779B97F4A7C15ull;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, bound).
    uint64_t below(uint64_t bound) {
        return (uint64_t)(((unsigned __int128)next_u64() * bound) >> 64);
    }
    // Uniform in [0, 1).
    double unit() { return (double)(next_u64() >> 11) / (double)(1ull << 53); }
};

// `CountDist`: `Uniform { max }`, `Pareto { mean }` and `HeavyTailed`.
struct CountDist {
    enum Kind { Uniform, Pareto, Heavy } kind;
    uint32_t param;  // max (uniform) or mean (Pareto)
    static CountDist uniform(uint32_t max) { return {Uniform, max}; }
    static CountDist pareto_mean(uint32_t mean) { return {Pareto, mean}; }
    static CountDist heavy_tailed() { return {Heavy, 0}; }
    // `CountDist::name`, the benchmark rows' input string.
    std::string name() const {
        if (kind == Uniform) return "uniform[0," + std::to_string(param) + "]";
        if (kind == Pareto) return "pareto(1.5) mean " + std::to_string(param);
        return "heavy-tailed";
    }
    // floor(scale / u^(1/1.5)) for u in (0, 1], capped at 2^20 (Rust's saturating `as u64`).
    static uint32_t pareto(Rng& rng, double scale) {
        double u = 1.0 - rng.unit();  // (0, 1]
        double f = std::floor(scale / std::pow(u, 1.0 / 1.5));
        uint64_t v = f >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)f;
        return (uint32_t)std::min<uint64_t>(v, 1ull << 20);
    }
    uint32_t draw(Rng& rng) const {
        if (kind == Uniform) return (uint32_t)rng.below((uint64_t)param + 1);
        if (kind == Pareto) return pareto(rng, (double)param / 3.0);
        if (rng.below(10) != 0) return 0;
        return pareto(rng, 33.3);
    }
};

// Counts drawn from `dist` until they cover exactly `total` items (the last one cut), with
// the heavy-tailed distribution's planted count of 2^20 (when `total` allows) at a random
// position.
inline std::vector<uint32_t> counts_covering(size_t total, CountDist dist, Rng& rng) {
    const size_t planted = dist.kind == CountDist::Heavy && total >= (1u << 21) ? 1u << 20 : 0;
    std::vector<uint32_t> counts;
    size_t left = total - planted;
    while (left > 0) {
        size_t c = std::min<size_t>(dist.draw(rng), left);
        counts.push_back((uint32_t)c);
        left -= c;
    }
    if (planted > 0) {
        size_t at = rng.below(counts.size() + 1);
        counts.insert(counts.begin() + at, (uint32_t)planted);
    }
    return counts;
}

// `random_layout`: start offsets of intervals of `counts` laid out back to back in a
// random order (Fisher-Yates from the back, as mgpu-bench draws it).
inline std::vector<uint32_t> random_layout(const std::vector<uint32_t>& counts, Rng& rng) {
    std::vector<size_t> order(counts.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    for (size_t i = order.size(); i-- > 1;) std::swap(order[i], order[rng.below(i + 1)]);
    std::vector<uint32_t> starts(counts.size());
    uint32_t at = 0;
    for (size_t o : order) starts[o] = at, at += counts[o];
    return starts;
}

// Exclusive scan of counts in place (`mgpu_cpu::scan_counts_exclusive_in_place`).
inline void scan_exclusive_in_place(std::vector<uint32_t>& c) {
    uint32_t sum = 0;
    for (auto& x : c) {
        uint32_t v = x;
        x = sum;
        sum += v;
    }
}

// ---- minimal-traffic kernels ------------------------------------------------------------

// Reads `in_vecs` and writes `out_vecs` 16-byte vectors, grid-stride, four vectors in
// flight per thread: a row's minimal traffic as one read stream and one write stream. Each
// store writes the running XOR of what the thread has read; the final store (never taken
// on the zero inputs the benchmarks use) keeps the loads that no regular store depends
// on. `out` holds at least one vector.
__global__ void __launch_bounds__(256) stream_bound(const int4* __restrict__ in, size_t in_vecs,
                                                    int4* __restrict__ out, size_t out_vecs) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t end = in_vecs > out_vecs ? in_vecs : out_vecs;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    int4 acc{0, 0, 0, 0};
    for (; i + 3 * stride < end; i += 4 * stride) {
        int4 v[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            size_t j = i + k * stride;
            v[k] = j < in_vecs ? in[j] : int4{0, 0, 0, 0};
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            size_t j = i + k * stride;
            acc.x ^= v[k].x, acc.y ^= v[k].y, acc.z ^= v[k].z, acc.w ^= v[k].w;
            if (j < out_vecs) out[j] = acc;
        }
    }
    for (; i < end; i += stride) {
        if (i < in_vecs) {
            int4 v = in[i];
            acc.x ^= v.x, acc.y ^= v.y, acc.z ^= v.z, acc.w ^= v.w;
        }
        if (i < out_vecs) out[i] = acc;
    }
    if (acc.x == 0x7eadbeef && acc.y == 0x1234567 && acc.z == -5 && acc.w == 0x0f0f0f0f) out[0] = acc;
}

// CSR SpMV's minimal traffic, two ways (the `bound` row takes the faster): n nonzeros,
// each value times its gathered vector element x[col], summed per thread; then the row
// starts read (`csr_vecs` 16-byte vectors) and the results written (`y_vecs` 16-byte pairs
// of doubles), each result depending on the sum and a row start.
// - `spmv_bound`: n = 4 * quads, values as 16-byte pairs and columns as 16-byte quads, four
//   quads (16 gathers) in flight, 8 CTAs an SM: the faster while the vector fits L2.
// - `spmv_bound_each`: one nonzero an iteration, the values and columns streamed with
//   evict-first loads: the faster when the vector is larger than L2, where more gathers
//   in flight only thrash it.
// Their loops without the rows' pass, on an H100 (docs/segreduce.md): 2.89 and 2.97 copies
// at 2^24, 9.30 and 8.40 at 2^27; the kernel before (16 in flight, evict-first, 6 CTAs an
// SM) 3.19 and 9.66 with the rows' pass.
__device__ __forceinline__ double spmv_quad(const double2* __restrict__ vals,
                                            const int4* __restrict__ cols,
                                            const double* __restrict__ x, size_t q) {
    int4 c = __ldg(cols + q);
    double2 a = __ldg(vals + 2 * q), b = __ldg(vals + 2 * q + 1);
    return a.x * __ldg(x + c.x) + a.y * __ldg(x + c.y) + b.x * __ldg(x + c.z) + b.y * __ldg(x + c.w);
}

// The row starts read and the results written after a thread's sum `acc` (both bounds).
__device__ __forceinline__ void spmv_rows_out(double acc, const int4* __restrict__ csr, size_t csr_vecs,
                                              double2* __restrict__ y, size_t y_vecs) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t end = csr_vecs > y_vecs ? csr_vecs : y_vecs;
    double keep = 0;
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < end; j += stride) {
        int4 r = j < csr_vecs ? csr[j] : int4{0, 0, 0, 0};
        double2 v = make_double2(acc + r.x + r.z, acc + r.y + r.w);
        if (j < y_vecs) y[j] = v;
        else keep += v.x + v.y;
    }
    if (keep == 1.25e300 || acc == 1.25e300) y[0] = make_double2(keep, acc);  // keeps every load
}

__global__ void __launch_bounds__(256, 8) spmv_bound(const double2* __restrict__ vals,
                                                     const int4* __restrict__ cols,
                                                     const double* __restrict__ x, size_t quads,
                                                     const int4* __restrict__ csr, size_t csr_vecs,
                                                     double2* __restrict__ y, size_t y_vecs) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    double acc = 0;
    for (; q + 3 * stride < quads; q += 4 * stride) {
        double p[4];
#pragma unroll
        for (int k = 0; k < 4; k++) p[k] = spmv_quad(vals, cols, x, q + k * stride);
        acc += (p[0] + p[1]) + (p[2] + p[3]);
    }
    for (; q < quads; q += stride) acc += spmv_quad(vals, cols, x, q);
    spmv_rows_out(acc, csr, csr_vecs, y, y_vecs);
}

__global__ void __launch_bounds__(256) spmv_bound_each(const double* __restrict__ vals,
                                                       const int* __restrict__ cols,
                                                       const double* __restrict__ x, size_t n,
                                                       const int4* __restrict__ csr, size_t csr_vecs,
                                                       double2* __restrict__ y, size_t y_vecs) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    double acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        acc += __ldcs(vals + i) * __ldg(x + __ldcs(cols + i));
    spmv_rows_out(acc, csr, csr_vecs, y, y_vecs);
}

// Interval move of the intervals themselves (no search): interval i, of scan[i + 1] -
// scan[i] items (the last ends at `total`), copied from src[g[i]..] to dst[s[i]..]. Reads
// 3 words per interval and each item once, writes each item once. `LANES` lanes per
// interval (1: one thread walks its interval); intervals longer than `long_from` are
// left to `move_chunks`.
template <int LANES>
__global__ void __launch_bounds__(256) move_intervals(const int* __restrict__ src, int* __restrict__ dst,
                                                      const uint32_t* __restrict__ scan,
                                                      const uint32_t* __restrict__ g,
                                                      const uint32_t* __restrict__ s, size_t m,
                                                      uint32_t total, uint32_t long_from) {
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t step = (size_t)gridDim.x * blockDim.x / LANES;
    const uint32_t lane = (uint32_t)(t % LANES);
    for (size_t i = t / LANES; i < m; i += step) {
        uint32_t b = scan[i], e = i + 1 < m ? scan[i + 1] : total;
        if (e - b > long_from) continue;
        const int* from = src + g[i];
        int* to = dst + s[i];
        for (uint32_t k = lane; k < e - b; k += LANES) to[k] = from[k];
    }
}

// The long intervals of `move_intervals`, as chunks of up to 4096 items: chunk c copies
// `len[c]` items from src[from[c]..] to dst[to[c]..], one CTA a chunk.
__global__ void __launch_bounds__(256) move_chunks(const int* __restrict__ src, int* __restrict__ dst,
                                                   const uint32_t* __restrict__ from,
                                                   const uint32_t* __restrict__ to,
                                                   const uint32_t* __restrict__ len) {
    const uint32_t c = blockIdx.x, f = from[c], d = to[c], l = len[c];
    for (uint32_t k = threadIdx.x; k < l; k += blockDim.x) dst[d + k] = src[f + k];
}

// Blocks of 256 threads that `kernel` keeps resident on the whole device (one wave).
template <class K> int resident_grid(K kernel) {
    int dev, sms, per;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, 256, 0));
    return sms * std::max(per, 1);
}
