// Bounds for mgpu's interval move and bulk remove, in plain CUDA (no mgpu code). Copy
// ratios: median of 15 timed calls (common.cuh) over a device-to-device copy's of n
// 4-byte words, same process, at n = 2^24 and 2^27 outputs, with the benchmark's mean-10 counts (uniform in
// [0, 20]) and the intervals laid out in two random orders for gather and scatter.
//
// - Interval move with precomputed objects (no search), random or sequential gather and
//   scatter: per-item strided loads and stores, VT = 11 per thread (mgpu's old move
//   kernel shape), against one interval per warp instruction (32, 16 or 8 lanes per
//   interval; one interval at a time or four in flight).
// - A read-only stream, and a stream with bulk remove's minimal traffic (read n and n / 2
//   words, write n / 2).
// - Seed 002's rows at their minimal traffic: segmented reduce (read n values of 4 or 8
//   bytes and the m = n / (avg + 1) segment starts, write m results; avg 10 and 1000),
//   reduce-by-key (read n keys and n values, write m keys and m values; runs of mean 10
//   and 1000), and CSR SpMV f64 (read n values, n columns and the m = n / 16 row starts,
//   gather one vector element per nonzero from a vector of m elements at the benchmark's
//   random columns, write m results).
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o bounds bounds.cu && ./bounds            (all but seed 002's)
//   ./bounds segreduce                                              (seed 002's rows)
// Results on an H100 (2026-11-22): docs/intervalmove.md and docs/bulk.md.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "common.cuh"

// Item i (of VT per thread, strided) of object lbs[i]: dst[s + rank] = src[g + rank].
template <int VT>
__global__ void per_item(const int* __restrict__ src, int* __restrict__ dst,
                         const int* __restrict__ lbs, const int* __restrict__ scan,
                         const int* __restrict__ g, const int* __restrict__ s, int n) {
    int base = blockIdx.x * 128 * VT + threadIdx.x;
    int v[VT], d[VT];
#pragma unroll
    for (int k = 0; k < VT; k++) {
        int i = base + 128 * k;
        if (i < n) {
            int seg = lbs[i], r = i - scan[seg];
            d[k] = s[seg] + r;
            v[k] = src[g[seg] + r];
        }
    }
#pragma unroll
    for (int k = 0; k < VT; k++)
        if (base + 128 * k < n) dst[d[k]] = v[k];
}

// LANES lanes per interval, `per` consecutive intervals per group, one at a time.
template <int LANES>
__global__ void per_interval(const int* __restrict__ src, int* __restrict__ dst,
                             const int* __restrict__ scan, const int* __restrict__ g,
                             const int* __restrict__ s, int m, int per) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, grp = t / LANES, lane = t % LANES;
    for (int k = 0; k < per; k++) {
        int seg = grp * per + k;
        if (seg >= m) return;
        int c = scan[seg + 1] - scan[seg], gg = g[seg], ss = s[seg];
        for (int j = lane; j < c; j += LANES) dst[ss + j] = src[gg + j];
    }
}

// One interval per warp instruction, four intervals' loads before their stores (counts
// of at most 32).
__global__ void per_interval_x4(const int* __restrict__ src, int* __restrict__ dst,
                                const int* __restrict__ scan, const int* __restrict__ g,
                                const int* __restrict__ s, int m, int per) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    for (int k = 0; k < per; k += 4) {
        int v[4], d[4];
        bool ok[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            int seg = w * per + k + u;
            ok[u] = false;
            if (seg < m && lane < scan[seg + 1] - scan[seg]) {
                ok[u] = true;
                v[u] = src[g[seg] + lane];
                d[u] = s[seg] + lane;
            }
        }
#pragma unroll
        for (int u = 0; u < 4; u++)
            if (ok[u]) dst[d[u]] = v[u];
    }
}

__global__ void read_only(const int4* __restrict__ a, int4* out, size_t n) {
    int4 acc{0, 0, 0, 0};
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int4 v = a[i];
        acc.x ^= v.x, acc.y ^= v.y, acc.z ^= v.z, acc.w ^= v.w;
    }
    if (acc.x == 12345 && acc.y == 7) out[0] = acc;  // keeps the loads
}

// Bulk remove's minimal traffic: read n and n / 2 words, write n / 2.
__global__ void remove_like(const int2* __restrict__ src, const int* __restrict__ idx,
                            int* __restrict__ out, size_t half) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < half;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = src[i].x ^ idx[i];
}

// Reads n words as 16-byte vectors and m words, writes m words of `Out` (segmented
// reduce's and reduce-by-key's minimal traffic: `words` is n * width / 4).
template <class Out>
__global__ void stream_and_write(const int4* __restrict__ a, size_t vecs, const int* __restrict__ b,
                                 Out* __restrict__ out, size_t m) {
    int4 acc{0, 0, 0, 0};
    size_t stride = (size_t)gridDim.x * blockDim.x, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (size_t i = t; i < vecs; i += stride) {
        int4 v = a[i];
        acc.x ^= v.x, acc.y ^= v.y, acc.z ^= v.z, acc.w ^= v.w;
    }
    for (size_t j = t; j < m; j += stride) out[j] = (Out)(b[j] ^ acc.x);
}

// SpMV's minimal traffic: each nonzero's value times its gathered vector element, summed
// per thread; m results written.
__global__ void spmv_like(const double* __restrict__ vals, const int* __restrict__ cols,
                          const double* __restrict__ x, size_t n, const int* __restrict__ csr,
                          double* __restrict__ y, size_t m) {
    double acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (size_t i = t; i < n; i += stride) acc += vals[i] * x[cols[i]];
    for (size_t j = t; j < m; j += stride) y[j] = acc + csr[j];
}

// Seed 002's bounds at 2^lg (copy ratios against `copy` ms).
void segreduce_bounds(int lg, float copy) {
    size_t n = 1ull << lg;
    char* big;
    CK(cudaMalloc(&big, n * 8 * 2 + n * 4));
    CK(cudaMemset(big, 0, n * 8 * 2 + n * 4));
    int* idx = (int*)(big + n * 16);  // n words
    int grid = 132 * 16;
    for (int avg : {10, 1000}) {
        size_t m = n / (avg + 1);
        float i32 = median_ms([&] { stream_and_write<int><<<grid, 256>>>((int4*)big, n / 4, idx, (int*)(big + n * 8), m); });
        float f64 = median_ms([&] { stream_and_write<double><<<grid, 256>>>((int4*)big, n / 2, idx, (double*)(big + n * 8), m); });
        printf(" segmented reduce, mean %4d: i32 %.3f  f64 %.3f\n", avg, i32 / copy, f64 / copy);
        m = n / avg;
        // Keys and values: 2n words read; m keys and m values written.
        float rbk = median_ms([&] { stream_and_write<long long><<<grid, 256>>>((int4*)big, n / 2, idx, (long long*)(big + n * 8), m); });
        printf(" reduce-by-key i32/i32, runs mean %4d: %.3f\n", avg, rbk / copy);
    }
    // SpMV: the benchmark's columns, uniform over m = n / 16 rows.
    size_t m = n / 16;
    std::mt19937_64 rng(7);
    std::vector<int> cols(n);
    for (auto& c : cols) c = rng() % m;
    CK(cudaMemcpy(idx, cols.data(), n * 4, cudaMemcpyHostToDevice));
    double* x;
    CK(cudaMalloc(&x, m * 8));
    CK(cudaMemset(x, 0, m * 8));
    float spmv = median_ms([&] { spmv_like<<<grid, 256>>>((double*)big, idx, x, n, idx, (double*)(big + n * 8), m); });
    printf(" SpMV f64, 16 per row, columns over the whole vector: %.3f\n", spmv / copy);
    cudaFree(x);
    cudaFree(big);
}

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "segreduce") {
        for (int lg : {24, 27}) {
            size_t n = 1ull << lg;
            int *a, *b;
            CK(cudaMalloc(&a, n * 4));
            CK(cudaMalloc(&b, n * 4));
            float copy = median_ms([&] { cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice); });
            printf("2^%d: copy %.4f ms\n", lg, copy);
            cudaFree(a), cudaFree(b);
            segreduce_bounds(lg, copy);
        }
        return 0;
    }
    for (int lg : {24, 27}) {
        size_t n = 1ull << lg;
        std::mt19937_64 rng(42);
        std::vector<int> cnt;
        for (size_t tot = 0; tot < n;) {
            int c = std::min<size_t>(rng() % 21, n - tot);
            cnt.push_back(c);
            tot += c;
        }
        int m = cnt.size();
        std::vector<int> scan(m + 1, 0), lbs(n);
        for (int i = 0; i < m; i++) scan[i + 1] = scan[i] + cnt[i];
        for (int i = 0; i < m; i++)
            for (int j = scan[i]; j < scan[i + 1]; j++) lbs[j] = i;
        // Starts of the intervals laid out in a random order.
        auto layout = [&](std::vector<int>& st) {
            std::vector<int> p(m);
            for (int i = 0; i < m; i++) p[i] = i;
            std::shuffle(p.begin(), p.end(), rng);
            st.assign(m, 0);
            for (int k = 0, o = 0; k < m; o += cnt[p[k]], k++) st[p[k]] = o;
        };
        std::vector<int> g, s;
        layout(g);
        layout(s);
        int *src, *dst, *dlbs, *dscan, *dg, *ds;
        CK(cudaMalloc(&src, n * 4));
        CK(cudaMalloc(&dst, n * 4));
        CK(cudaMalloc(&dlbs, n * 4));
        CK(cudaMalloc(&dscan, (m + 1) * 4));
        CK(cudaMalloc(&dg, m * 4));
        CK(cudaMalloc(&ds, m * 4));
        CK(cudaMemcpy(dlbs, lbs.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dscan, scan.data(), (m + 1) * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dg, g.data(), m * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(ds, s.data(), m * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(src, 1, n * 4));
        float copy = median_ms([&] { cudaMemcpyAsync(dst, src, n * 4, cudaMemcpyDeviceToDevice); });
        printf("2^%d: copy %.4f ms, %d intervals\n", lg, copy, m);
        // Sequential sides use the scan itself as the starts.
        const char* names[3] = {"random gather, random scatter", "random gather, sequential scatter",
                                "sequential gather, random scatter"};
        int* G[3] = {dg, dg, dscan};
        int* S[3] = {ds, dscan, ds};
        for (int c = 0; c < 3; c++) {
            int *gc = G[c], *sc = S[c];
            int grid16 = (m + 15) / 16;
            printf(" %s\n", names[c]);
            printf("  per item, VT 11            %.3f\n",
                   median_ms([&] { per_item<11><<<(n + 1407) / 1408, 128>>>(src, dst, dlbs, dscan, gc, sc, n); }) / copy);
            printf("  per interval, 32 lanes     %.3f\n",
                   median_ms([&] { per_interval<32><<<(grid16 * 32 + 255) / 256, 256>>>(src, dst, dscan, gc, sc, m, 16); }) / copy);
            printf("  per interval, 16 lanes     %.3f\n",
                   median_ms([&] { per_interval<16><<<(grid16 * 16 + 255) / 256, 256>>>(src, dst, dscan, gc, sc, m, 16); }) / copy);
            printf("  per interval, 8 lanes      %.3f\n",
                   median_ms([&] { per_interval<8><<<(grid16 * 8 + 255) / 256, 256>>>(src, dst, dscan, gc, sc, m, 16); }) / copy);
            printf("  per interval, 4 in flight  %.3f\n",
                   median_ms([&] { per_interval_x4<<<(grid16 * 32 + 255) / 256, 256>>>(src, dst, dscan, gc, sc, m, 16); }) / copy);
        }
        printf(" read-only stream of n words     %.3f\n",
               median_ms([&] { read_only<<<132 * 16, 256>>>((int4*)src, (int4*)dst, n / 4); }) / copy);
        printf(" bulk remove's minimal traffic   %.3f\n",
               median_ms([&] { remove_like<<<132 * 16, 256>>>((int2*)src, dlbs, dst, n / 2); }) / copy);
        cudaFree(src), cudaFree(dst), cudaFree(dlbs), cudaFree(dscan), cudaFree(dg), cudaFree(ds);
    }
}
