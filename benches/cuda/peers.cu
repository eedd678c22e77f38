// mgpu's peers in plain CUDA C++ (CUB from the toolkit's CCCL; no mgpu code), timed as
// `mgpu-bench` times mgpu: copy ratio = median of 15 timed calls after 2 warm-ups over a
// device-to-device copy of n 4-byte words, same process, temporaries allocated outside the
// timed calls, inputs as ../../shared/ANCHORS.md describes them. Each operation's result is
// checked against the CPU (std::stable_sort, std::merge) at the smallest size, 2^20.
//
// Families (first argument; all when none is named):
//   sort   DeviceMergeSort keys i32, keys u64, pairs i32+i32, already-sorted i32;
//          DeviceMerge keys i32 (two sorted halves); DeviceRadixSort keys i32 for reference
//   sort1  one call of each merge sort at 2^24, untimed (for a profiler: `ncu ./peers sort1`)
//
// Output: one line per row, `family op type input 2^lg library ms copy_ratio`.
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o peers peers.cu && ./peers sort
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#include <cub/device/device_merge.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include "common.cuh"

// A device buffer of n T's, freed at scope exit.
template <class T> struct Buf {
    T* p = nullptr;
    size_t n = 0;
    explicit Buf(size_t n) : n(n) { CK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T))); }
    Buf(const std::vector<T>& h) : Buf(h.size()) { up(h); }
    ~Buf() { cudaFree(p); }
    Buf(const Buf&) = delete;
    void up(const std::vector<T>& h) {
        CK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> down() const {
        std::vector<T> h(n);
        CK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
};

// Device copy of n 4-byte words, the copy ratio's denominator.
float copy_ms(size_t n) {
    Buf<int> a(n), b(n);
    CK(cudaMemset(a.p, 1, n * 4));
    return median_ms([&] { CK(cudaMemcpyAsync(b.p, a.p, n * 4, cudaMemcpyDeviceToDevice)); });
}

void row(const char* family, const char* op, const char* type, const char* input, int lg,
         const char* lib, float ms, float copy) {
    printf("%s %s %s %s 2^%d %s %.4f %.3f\n", family, op, type, input, lg, lib, ms, ms / copy);
    fflush(stdout);
}

void check(bool ok, const char* what) {
    if (!ok) {
        printf("MISMATCH: %s\n", what);
        exit(2);
    }
}

// Keys uniform over the full range of T.
template <class T> std::vector<T> random_keys(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> k(n);
    for (auto& x : k) x = (T)rng();
    return k;
}

// A reusable temporary-storage buffer.
struct Temp {
    void* p = nullptr;
    size_t bytes = 0;
    void need(size_t b) {
        if (b > bytes) {
            cudaFree(p);
            CK(cudaMalloc(&p, b));
            bytes = b;
        }
    }
    ~Temp() { cudaFree(p); }
};

struct LessOp {
    template <class T> __device__ __host__ bool operator()(const T& a, const T& b) const {
        return a < b;
    }
};

// CUB merge sort of keys (SortKeysCopy: the input stays, every call sorts the same keys).
template <class K> struct MergeSortKeys {
    Temp t;
    void operator()(const K* in, K* out, size_t n) {
        size_t b = 0;
        CK(cub::DeviceMergeSort::SortKeysCopy(nullptr, b, in, out, (int64_t)n, LessOp{}));
        t.need(b);
        CK(cub::DeviceMergeSort::SortKeysCopy(t.p, b, in, out, (int64_t)n, LessOp{}));
    }
};

// CUB merge sort of pairs: SortPairs sorts in place, so each call first copies the input
// (two device copies, subtracted from its time through `copies_ms`).
template <class K, class V> struct MergeSortPairs {
    Temp t;
    void operator()(K* keys, V* vals, size_t n) {
        size_t b = 0;
        CK(cub::DeviceMergeSort::SortPairs(nullptr, b, keys, vals, (int64_t)n, LessOp{}));
        t.need(b);
        CK(cub::DeviceMergeSort::SortPairs(t.p, b, keys, vals, (int64_t)n, LessOp{}));
    }
};

void sort_family(bool timed) {
    for (int lg : {20, 24, 27}) {
        if (!timed && lg != 24) continue;
        size_t n = 1ull << lg;
        bool verify = lg == 20;  // the CPU's sorts of 2^27 would take minutes
        float copy = timed ? copy_ms(n) : 1.0f;
        if (timed) printf("# 2^%d copy %.4f ms\n", lg, copy);
        // keys i32
        {
            auto h = random_keys<int>(n, 1);
            Buf<int> in(h), out(n);
            MergeSortKeys<int> s;
            s(in.p, out.p, n);
            auto want = h;  // also the already-sorted input
            std::sort(want.begin(), want.end());
            if (verify) check(out.down() == want, "merge sort keys i32");
            if (timed) {
                row("sort", "mergesort_keys", "i32", "random", lg, "cub",
                    median_ms([&] { s(in.p, out.p, n); }), copy);
                Buf<int> sorted(want);
                row("sort", "mergesort_keys", "i32", "sorted", lg, "cub",
                    median_ms([&] { s(sorted.p, out.p, n); }), copy);
                // merge of two sorted halves
                auto a = h, b = h;
                a.resize(n / 2);
                b.erase(b.begin(), b.begin() + n / 2);
                std::sort(a.begin(), a.end());
                std::sort(b.begin(), b.end());
                Buf<int> da(a), db(b);
                Temp t;
                auto merge = [&] {
                    size_t bytes = 0;
                    CK(cub::DeviceMerge::MergeKeys(nullptr, bytes, da.p, (int64_t)a.size(), db.p,
                                                   (int64_t)b.size(), out.p, LessOp{}));
                    t.need(bytes);
                    CK(cub::DeviceMerge::MergeKeys(t.p, bytes, da.p, (int64_t)a.size(), db.p,
                                                   (int64_t)b.size(), out.p, LessOp{}));
                };
                merge();
                if (verify) {
                    std::vector<int> m(n);
                    std::merge(a.begin(), a.end(), b.begin(), b.end(), m.begin());
                    check(out.down() == m, "merge keys i32");
                }
                row("sort", "merge_keys", "i32", "halves", lg, "cub", median_ms(merge), copy);
                // radix sort, for reference
                Temp rt;
                auto radix = [&] {
                    size_t bytes = 0;
                    CK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, in.p, out.p, (int64_t)n));
                    rt.need(bytes);
                    CK(cub::DeviceRadixSort::SortKeys(rt.p, bytes, in.p, out.p, (int64_t)n));
                };
                radix();
                if (verify) check(out.down() == want, "radix sort keys i32");
                row("sort", "radixsort_keys", "i32", "random", lg, "cub", median_ms(radix), copy);
            }
        }
        // keys u64
        {
            auto h = random_keys<uint64_t>(n, 2);
            Buf<uint64_t> in(h), out(n);
            MergeSortKeys<uint64_t> s;
            s(in.p, out.p, n);
            if (verify) {
                auto want = h;
                std::sort(want.begin(), want.end());
                check(out.down() == want, "merge sort keys u64");
            }
            if (timed)
                row("sort", "mergesort_keys", "u64", "random", lg, "cub",
                    median_ms([&] { s(in.p, out.p, n); }), copy);
        }
        // pairs i32 + i32 (values the original index)
        {
            auto h = random_keys<int>(n, 3);
            std::vector<int> idx(n);
            for (size_t i = 0; i < n; i++) idx[i] = (int)i;
            Buf<int> k0(h), v0(idx), k(n), v(n);
            MergeSortPairs<int, int> s;
            auto call = [&] {
                CK(cudaMemcpyAsync(k.p, k0.p, n * 4, cudaMemcpyDeviceToDevice));
                CK(cudaMemcpyAsync(v.p, v0.p, n * 4, cudaMemcpyDeviceToDevice));
                s(k.p, v.p, n);
            };
            call();
            if (verify) {
                std::vector<int> wk(n), wv(n);
                std::vector<size_t> p(n);
                for (size_t i = 0; i < n; i++) p[i] = i;
                std::stable_sort(p.begin(), p.end(), [&](size_t x, size_t y) { return h[x] < h[y]; });
                for (size_t i = 0; i < n; i++) wk[i] = h[p[i]], wv[i] = (int)p[i];
                check(k.down() == wk && v.down() == wv, "merge sort pairs i32+i32");
            }
            if (timed)
                row("sort", "mergesort_pairs", "i32+i32", "random", lg, "cub",
                    median_ms(call) - 2 * copy, copy);
        }
    }
}

int main(int argc, char** argv) {
    std::string f = argc > 1 ? argv[1] : "all";
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, peers.cu, CCCL %d.%d.%d\n", prop.name, CCCL_MAJOR_VERSION, CCCL_MINOR_VERSION,
           CCCL_PATCH_VERSION);
    if (f == "sort1") {
        sort_family(false);
        return 0;
    }
    if (f == "sort" || f == "all") sort_family(true);
    CK(cudaDeviceSynchronize());
    return 0;
}
