// mgpu's peers in plain CUDA C++ (CUB from the toolkit's CCCL, cuSPARSE; no mgpu code),
// timed as `mgpu-bench` (benches/src/bin/mgpu-bench.rs) times mgpu, on the same
// operations, inputs and sizes: the inputs are mgpu-bench's bit for bit (common.cuh ports
// its splitmix64 `Rng`, `CountDist` and `counts_covering`; same seeds and draw order per
// operation; zero values and sources where mgpu-bench times zeros), and the rows carry
// mgpu-bench's op/type/input strings so that a report can join on them. Medians of 15
// timed calls after 2 warm-ups with CUDA events, temporaries (CUB temp storage, cuSPARSE's
// buffer) allocated outside the timed calls, and the copy ratio over a device-to-device
// cudaMemcpyAsync of n 4-byte words in the same process (../../shared/ANCHORS.md).
//
// Per non-sort row there is also a `bound` row: a plain CUDA kernel (common.cuh) that
// reads and writes exactly the bytes mgpu-bench counts as that row's `bytes` (16-byte
// loads and stores, grid-stride, one resident wave; each amount rounded up to 16 bytes);
// SpMV's bound also gathers x[col] per nonzero at the row's real columns, the faster of two
// kernels: sixteen gathers in flight a thread while x fits L2, one a thread with evict-first
// streams where x (64 MB at 2^27) outgrows it (with the first kernel alone it had taken
// 2.46 ms there on an H200, against cuSPARSE's 2.26).
//
// Families (all when none is named):
//   scan       scan_exclusive i32, f64 "uniform[0,16)" (DeviceScan::ExclusiveSum);
//              reduce i32, f64 "uniform[0,16)" (DeviceReduce::Sum)
//   intervals  bound rows only (CUB has no such operations), at mgpu-bench's count
//              distributions "uniform[0,20]", "uniform[0,2]", "heavy-tailed":
//              load_balance_search u32, interval_expand i32, f64, interval_expand_naive
//              i32 (streams of their minimal traffic), interval_move i32 (a plain move of
//              the same intervals: the fastest of 1, 4 and 32 lanes per interval, checked
//              against the CPU at the smallest size)
//   bulk       bulk_remove i32, i64 "random half" (DeviceSelect::Flagged, the keep flags
//              made outside the timed calls from the removal indices);
//              bulk_insert i32, i64 "n/2 sorted random" (DeviceMerge::MergePairs of
//              (positions, values) with (0..n, source), keys to a discard iterator)
//   segreduce  seg_reduce_csr i32, f64 "segments mean 10", "segments mean 1000"
//              (DeviceSegmentedReduce::Sum, begin/end offsets from the CSR);
//              reduce_by_key i32 "runs mean 10", "runs mean 1000" (DeviceReduce::ReduceByKey);
//              spmv_csr f64 "16 per row, unif", "16 per row, pow" (cusparseSpMV, CSR,
//              32-bit indices, alpha 1, beta 0, CUSPARSE_SPMV_ALG_DEFAULT as library
//              cusparse, and the deterministic CUSPARSE_SPMV_CSR_ALG2 as cusparse-alg2)
//   sort       mergesort_keys i32 "random", u64 "random", i32 "sorted";
//              mergesort_pairs i32 "random, values" (DeviceMergeSort::SortKeysCopy,
//              SortPairsCopy); merge_keys i32 "two sorted halves" (DeviceMerge::MergeKeys);
//              radixsort_keys i32 "random" (DeviceRadixSort::SortKeys, for reference: mgpu
//              has no such row). No bound rows.
//   sort1      one call of each merge sort at 2^24, untimed (for a profiler: `ncu ./peers sort1`)
// n: input elements; nonzeros for SpMV; source elements for bulk insert (ANCHORS.md).
// Element counts go to CUB as int where it takes any integer type (32-bit offsets, the
// fastest choice for n < 2^31).
//
// Every CUB/cuSPARSE result is checked against the CPU at the smallest size run (2^20 by
// default): `MISMATCH ...` and exit status 1 on a difference.
//
// Output (stdout, tab-separated): first `# device<TAB>GPU name`, then `#` comment lines
// (versions, `# copy<TAB>n<TAB>ms` per size, ...), and one line per row:
//   row<TAB>op<TAB>type<TAB>input<TAB>n<TAB>library<TAB>ms<TAB>copy_ratio
// library: cub, cusparse or bound; ms the median (%.5f); copy_ratio = ms / copy ms (%.4f).
//
// Usage: ./peers [scan] [intervals] [bulk] [segreduce] [sort] [--sizes 20,24,27]   |   ./peers sort1
// Build on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o peers peers.cu -lcusparse
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>
#include <cub/device/device_merge.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include "common.cuh"

#define CKS(x)                                                                           \
    do {                                                                                 \
        cusparseStatus_t s = (x);                                                        \
        if (s != CUSPARSE_STATUS_SUCCESS) {                                              \
            printf("cuSPARSE error %s at %s:%d\n", cusparseGetErrorString(s), __FILE__, \
                   __LINE__);                                                            \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

// A device buffer of n T's, freed at scope exit.
template <class T> struct Buf {
    T* p = nullptr;
    size_t n = 0;
    explicit Buf(size_t n) : n(n) { CK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T))); }
    explicit Buf(const std::vector<T>& h) : Buf(h.size()) { up(h); }
    ~Buf() { cudaFree(p); }
    Buf(const Buf&) = delete;
    Buf& operator=(const Buf&) = delete;
    void up(const std::vector<T>& h) {
        CK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    void zero() { CK(cudaMemset(p, 0, n * sizeof(T))); }
    std::vector<T> down() const {
        std::vector<T> h(n);
        CK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
};

// Temporary storage, freed at scope exit.
struct Temp {
    void* p = nullptr;
    size_t bytes = 0;
    Temp() = default;
    Temp(const Temp&) = delete;
    Temp& operator=(const Temp&) = delete;
    void need(size_t b) {
        if (b > bytes) {
            cudaFree(p);
            CK(cudaMalloc(&p, b));
            bytes = b;
        }
    }
    ~Temp() { cudaFree(p); }
};

// A CUB call `f(temp, bytes)`: sized and its temporary storage allocated at construction,
// so that calling it launches only the GPU work.
template <class F> struct CubCall {
    F f;
    Temp t;
    size_t bytes = 0;
    explicit CubCall(F f) : f(f) {
        CK(f(nullptr, bytes));
        t.need(bytes);
    }
    void operator()() { CK(f(t.p, bytes)); }
};
template <class F> CubCall<F> cub_call(F f) { return CubCall<F>(f); }

template <class T> const char* type_name() {
    if constexpr (std::is_same_v<T, int32_t>) return "i32";
    else if constexpr (std::is_same_v<T, int64_t>) return "i64";
    else if constexpr (std::is_same_v<T, uint64_t>) return "u64";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else static_assert(sizeof(T) == 0, "no name");
}

// ---- sizes, output, checks --------------------------------------------------------------

struct Size {
    int lg;
    size_t n;
    float copy;   // ms of the device copy of n 4-byte words
    bool verify;  // check against the CPU (the smallest size run)
};

void emit(const char* op, const char* type, const std::string& input, size_t n, const char* lib,
          float ms, float copy) {
    printf("row\t%s\t%s\t%s\t%zu\t%s\t%.5f\t%.4f\n", op, type, input.c_str(), n, lib, ms,
           ms / copy);
    fflush(stdout);
}

[[noreturn]] void mismatch(const std::string& what) {
    printf("MISMATCH %s\n", what.c_str());
    fflush(stdout);
    exit(1);
}

double as_double(double v) { return v; }
double as_double(int64_t v) { return (double)v; }
double as_double(int32_t v) { return v; }
double as_double(uint64_t v) { return (double)v; }
double as_double(uint32_t v) { return v; }

// Integers exactly; f64 within a relative 1e-9 plus an absolute 1e-9.
template <class T> bool close(T got, T want) {
    if constexpr (std::is_floating_point_v<T>)
        return std::fabs(got - want) <= 1e-9 * std::fabs(want) + 1e-9;
    else
        return got == want;
}

template <class T>
void expect(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
    if (got.size() != want.size())
        mismatch(what + ": " + std::to_string(got.size()) + " outputs, want " +
                 std::to_string(want.size()));
    for (size_t i = 0; i < want.size(); i++)
        if (!close(got[i], want[i])) {
            char b[200];
            snprintf(b, sizeof b, ": at %zu got %.17g want %.17g", i, as_double(got[i]),
                     as_double(want[i]));
            mismatch(what + b);
        }
}

std::string at_n(const char* op, const char* type, const std::string& input, size_t n) {
    return std::string(op) + " " + type + " \"" + input + "\" n=" + std::to_string(n);
}

// Device copy of n 4-byte words, the copy ratio's denominator.
float copy_ms(size_t n) {
    Buf<int> a(n), b(n);
    a.zero();
    return median_ms([&] { CK(cudaMemcpyAsync(b.p, a.p, n * 4, cudaMemcpyDeviceToDevice)); });
}

// ---- bound rows -------------------------------------------------------------------------

size_t vecs16(size_t bytes) { return (bytes + 15) / 16; }

// The bound of a row that reads `read` and writes `write` bytes (zero inputs).
void bound_row(const Size& s, const char* op, const char* type, const std::string& input,
               size_t read, size_t write) {
    static int grid = resident_grid(stream_bound);
    size_t rv = vecs16(read), wv = vecs16(write);
    Buf<int4> in(rv), out(std::max<size_t>(wv, 1));
    in.zero();
    float ms = median_ms([&] { stream_bound<<<grid, 256>>>(in.p, rv, out.p, wv); });
    emit(op, type, input, s.n, "bound", ms, s.copy);
}

// ---- scan: scan_exclusive, reduce -------------------------------------------------------

template <class T> void scan_rows(const Size& s) {
    const size_t n = s.n;
    const std::string input = "uniform[0,16)";
    const char* ty = type_name<T>();
    Rng rng(0x5eed ^ (uint64_t)n);
    std::vector<T> h(n);
    for (auto& v : h) v = (T)rng.below(16);
    Buf<T> x(h);
    {
        Buf<T> y(n);
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceScan::ExclusiveSum(t, b, x.p, y.p, (int)n);
        });
        if (s.verify) {
            call();
            std::vector<T> want(n);
            T sum = 0;  // < 15 * 2^27 < 2^31: no overflow, f64 exact
            for (size_t i = 0; i < n; i++) want[i] = sum, sum += h[i];
            expect(y.down(), want, at_n("scan_exclusive", ty, input, n));
        }
        emit("scan_exclusive", ty, input, n, "cub", median_ms(call), s.copy);
    }
    bound_row(s, "scan_exclusive", ty, input, n * sizeof(T), n * sizeof(T));
    {
        Buf<T> out(1);
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceReduce::Sum(t, b, x.p, out.p, (int)n);
        });
        if (s.verify) {
            call();
            T sum = 0;
            for (auto v : h) sum += v;
            expect(out.down(), std::vector<T>{sum}, at_n("reduce", ty, input, n));
        }
        emit("reduce", ty, input, n, "cub", median_ms(call), s.copy);
    }
    bound_row(s, "reduce", ty, input, n * sizeof(T), 0);
}

void scan_family(const Size& s) {
    scan_rows<int32_t>(s);
    scan_rows<double>(s);
}

// ---- intervals: bound rows only (CUB has no load-balancing search or interval move) ----

// The interval family's bounds at mgpu-bench's three count distributions (seed 0x1a7e ^ n,
// counts covering n outputs, then the gather and the scatter layouts, as mgpu-bench draws
// them): load_balance_search u32 (reads the m-word scan, writes n indices),
// interval_expand i32 and f64 and interval_expand_naive i32 (read m values and the scan,
// write n values), all streams of their minimal traffic; and interval_move i32, a plain
// move of the same intervals at their gather and scatter starts (the fastest of one
// thread, 4 lanes and 32 lanes per interval, intervals past 4096 items copied as
// 4096-item chunks by a second kernel of one CTA a chunk).
void intervals_family(const Size& s) {
    const size_t n = s.n;
    const CountDist dists[3] = {CountDist::uniform(20), CountDist::uniform(2),
                                CountDist::heavy_tailed()};
    for (const CountDist& dist : dists) {
        const std::string input = dist.name();
        Rng rng(0x1a7e ^ (uint64_t)n);
        std::vector<uint32_t> counts = counts_covering(n, dist, rng);
        const size_t m = counts.size();
        bound_row(s, "load_balance_search", "u32", input, 4 * m, 4 * n);
        bound_row(s, "interval_expand", "i32", input, 8 * m, 4 * n);
        bound_row(s, "interval_expand", "f64", input, 12 * m, 8 * n);
        bound_row(s, "interval_expand_naive", "i32", input, 8 * m, 4 * n);

        std::vector<uint32_t> g = random_layout(counts, rng), sc = random_layout(counts, rng);
        std::vector<uint32_t> scan = counts;
        scan_exclusive_in_place(scan);
        const uint32_t long_from = 4096;
        std::vector<uint32_t> from, to, len;
        for (size_t i = 0; i < m; i++)
            if (counts[i] > long_from)
                for (uint32_t k = 0; k < counts[i]; k += long_from) {
                    from.push_back(g[i] + k);
                    to.push_back(sc[i] + k);
                    len.push_back(std::min(long_from, counts[i] - k));
                }
        Buf<int> src(n), dst(n);
        src.zero();
        Buf<uint32_t> dscan(scan), dg(g), ds(sc);
        Buf<uint32_t> dfrom(from), dto(to), dlen(len);
        const int chunks = (int)from.size();
        auto move = [&](auto kernel, int lanes) {
            int grid = (int)std::min<size_t>((m * lanes + 255) / 256, 132 * 64);
            return median_ms([&] {
                kernel<<<std::max(grid, 1), 256>>>(src.p, dst.p, dscan.p, dg.p, ds.p, m,
                                                   (uint32_t)n, long_from);
                if (chunks > 0) move_chunks<<<chunks, 256>>>(src.p, dst.p, dfrom.p, dto.p, dlen.p);
            });
        };
        if (s.verify) {
            // The bound moves the intervals: check it once, like the peers' results.
            std::vector<int> h(n), want(n);
            for (size_t i = 0; i < n; i++) h[i] = (int)(i * 2654435761u);
            src.up(h);
            for (size_t i = 0; i < m; i++)
                for (uint32_t k = 0; k < counts[i]; k++) want[sc[i] + k] = h[g[i] + k];
            for (int lanes : {1, 4, 32}) {
                dst.zero();
                if (lanes == 1) move(move_intervals<1>, 1);
                if (lanes == 4) move(move_intervals<4>, 4);
                if (lanes == 32) move(move_intervals<32>, 32);
                expect(dst.down(), want,
                       at_n("interval_move bound", "i32", input, n) + " lanes " +
                           std::to_string(lanes));
            }
            src.zero();
        }
        float best = std::min({move(move_intervals<1>, 1), move(move_intervals<4>, 4),
                               move(move_intervals<32>, 32)});
        emit("interval_move", "i32", input, n, "bound", best, s.copy);
    }
}

// ---- bulk: bulk_remove, bulk_insert -----------------------------------------------------

// Distinct nonzero check values (timing uses zeros, as mgpu-bench).
template <class T> T check_value(size_t i, int salt) {
    if constexpr (std::is_floating_point_v<T>)
        return (T)((double)((i * 37 + salt) % 64) - 32.0) / 8.0;
    else
        return (T)(i * 3 + 1) * (T)salt;
}

template <class T>
void bulk_rows(const Size& s, const std::vector<uint32_t>& idx, const std::vector<uint32_t>& pos) {
    const size_t n = s.n, size = sizeof(T);
    const char* ty = type_name<T>();
    // bulk_remove: keep flags from the removal indices (made outside the timed calls).
    {
        const std::string input = "random half";
        const size_t m = idx.size();
        std::vector<char> hf(n, 1);
        for (auto i : idx) hf[i] = 0;
        Buf<char> flags(hf);
        Buf<T> src(n), out(n - m);
        Buf<int64_t> selected(1);
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceSelect::Flagged(t, b, src.p, flags.p, out.p, selected.p,
                                              (int64_t)n);
        });
        if (s.verify) {
            std::vector<T> hs(n), want;
            for (size_t j = 0; j < n; j++) hs[j] = check_value<T>(j, 1);
            for (size_t j = 0; j < n; j++)
                if (hf[j]) want.push_back(hs[j]);
            src.up(hs);
            call();
            auto what = at_n("bulk_remove", ty, input, n);
            expect(selected.down(), std::vector<int64_t>{(int64_t)want.size()}, what + " count");
            expect(out.down(), want, what);
            src.zero();
        }
        emit("bulk_remove", ty, input, n, "cub", median_ms(call), s.copy);
        hf.clear();
        hf.shrink_to_fit();
    }
    bound_row(s, "bulk_remove", ty, "random half", size * n + 4 * idx.size(),
              size * (n - idx.size()));
    // bulk_insert: merge (positions, values) with (0..n, source); on equal keys the first
    // sequence goes first (CUB's merge path and serial merge take the second sequence's key
    // only when strictly less), so inserted value i lands before source[pos[i]].
    const size_t m = pos.size();
    {
        const std::string input = "n/2 sorted random";
        Buf<uint32_t> p(pos);
        Buf<T> values(m), src(n), out(n + m);
        values.zero();
        src.zero();
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceMerge::MergePairs(
                t, b, p.p, values.p, (int64_t)m, thrust::counting_iterator<uint32_t>(0), src.p,
                (int64_t)n, thrust::discard_iterator<>(), out.p, ::cuda::std::less<uint32_t>{});
        });
        if (s.verify) {
            std::vector<T> hv(m), hs(n), want;
            want.reserve(n + m);
            for (size_t i = 0; i < m; i++) hv[i] = check_value<T>(i, -1);
            for (size_t j = 0; j < n; j++) hs[j] = check_value<T>(j, 1);
            size_t i = 0;
            for (size_t j = 0; j < n; j++) {
                for (; i < m && pos[i] <= j; i++) want.push_back(hv[i]);
                want.push_back(hs[j]);
            }
            for (; i < m; i++) want.push_back(hv[i]);
            values.up(hv);
            src.up(hs);
            call();
            expect(out.down(), want, at_n("bulk_insert", ty, input, n));
            values.zero();
            src.zero();
        }
        emit("bulk_insert", ty, input, n, "cub", median_ms(call), s.copy);
    }
    bound_row(s, "bulk_insert", ty, "n/2 sorted random", size * n + (4 + size) * m,
              size * (n + m));
}

void bulk_family(const Size& s) {
    const size_t n = s.n;
    // mgpu-bench's `bulk`: one stream per type, the same for both: remove_half, then
    // insert_positions.
    Rng rng(0xb01c ^ (uint64_t)n);
    std::vector<uint32_t> idx, pos(n / 2);
    for (uint32_t i = 0; i < (uint32_t)n; i++)
        if (rng.below(2) == 0) idx.push_back(i);
    for (auto& p : pos) p = (uint32_t)rng.below((uint64_t)n + 1);
    std::sort(pos.begin(), pos.end());
    bulk_rows<int32_t>(s, idx, pos);
    bulk_rows<int64_t>(s, idx, pos);
}

// ---- segreduce: seg_reduce_csr, reduce_by_key, spmv_csr ---------------------------------

// offsets: the CSR's m segment starts and then n (m + 1 entries).
template <class T>
void segreduce_rows(const Size& s, const std::vector<uint32_t>& offsets, uint32_t avg) {
    const size_t n = s.n, m = offsets.size() - 1, size = sizeof(T);
    const char* ty = type_name<T>();
    const std::string input = "segments mean " + std::to_string(avg);
    {
        Buf<uint32_t> off(offsets);
        Buf<T> data(n), out(m);
        data.zero();
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceSegmentedReduce::Sum(t, b, data.p, out.p, (int64_t)m, off.p,
                                                   off.p + 1);
        });
        if (s.verify) {
            std::vector<T> hd(n), want(m);
            for (size_t i = 0; i < n; i++)  // small integers or eighths: exact sums
                hd[i] = std::is_floating_point_v<T> ? check_value<T>(i, 1) : (T)((int)(i % 7) - 3);
            for (size_t k = 0; k < m; k++) {
                T sum = 0;  // empty segments: 0
                for (uint32_t i = offsets[k]; i < offsets[k + 1]; i++) sum += hd[i];
                want[k] = sum;
            }
            data.up(hd);
            call();
            expect(out.down(), want, at_n("seg_reduce_csr", ty, input, n));
            data.zero();
        }
        emit("seg_reduce_csr", ty, input, n, "cub", median_ms(call), s.copy);
    }
    bound_row(s, "seg_reduce_csr", ty, input, size * n + 4 * m, size * m);
}

void reduce_by_key_rows(const Size& s, uint64_t avg) {
    const size_t n = s.n;
    const std::string input = "runs mean " + std::to_string(avg);
    Rng rng(0x4b ^ (uint64_t)n ^ avg);
    std::vector<int32_t> hk(n);
    int32_t key = 0;
    for (size_t i = 0; i < n; i++) {
        key += (i > 0 && rng.below(avg) == 0) ? 1 : 0;
        hk[i] = key;
    }
    const size_t runs = (size_t)key + 1;
    {
        Buf<int32_t> keys(hk), values(n), keys_out(n), values_out(n), count(1);
        values.zero();
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceReduce::ReduceByKey(t, b, keys.p, keys_out.p, values.p,
                                                  values_out.p, count.p,
                                                  ::cuda::std::plus<int32_t>{}, (int)n);
        });
        if (s.verify) {
            std::vector<int32_t> hv(n), wk(runs), wv(runs, 0);
            for (size_t i = 0; i < n; i++) hv[i] = (int32_t)(i % 7) - 3;
            for (size_t i = 0; i < n; i++) wk[hk[i]] = hk[i], wv[hk[i]] += hv[i];
            values.up(hv);
            call();
            auto what = at_n("reduce_by_key", "i32", input, n);
            expect(count.down(), std::vector<int32_t>{(int32_t)runs}, what + " runs");
            auto gk = keys_out.down(), gv = values_out.down();
            gk.resize(runs), gv.resize(runs);
            expect(gk, wk, what + " keys");
            expect(gv, wv, what + " values");
            values.zero();
        }
        emit("reduce_by_key", "i32", input, n, "cub", median_ms(call), s.copy);
    }
    bound_row(s, "reduce_by_key", "i32", input, 8 * n, 8 * runs);
}

void spmv_rows(const Size& s, bool pow) {
    const size_t n = s.n, rows = n / 16;  // rows: the vector x's length (mgpu-bench's name)
    const std::string input = pow ? "16 per row, pow" : "16 per row, unif";
    Rng rng(0x5b ^ (uint64_t)n ^ (uint64_t)pow);
    auto csr = counts_covering(n, pow ? CountDist::pareto_mean(16) : CountDist::uniform(32), rng);
    const size_t m = csr.size();  // CSR rows, one result each
    scan_exclusive_in_place(csr);
    csr.push_back((uint32_t)n);
    std::vector<int32_t> hc(n);
    for (auto& c : hc) c = (int32_t)rng.below(rows);
    std::vector<int32_t> hr(csr.begin(), csr.end());
    csr.clear();
    csr.shrink_to_fit();
    Buf<int32_t> rowptr(hr), cols(hc);
    Buf<double> vals(n), x(rows), y(m);
    vals.zero();
    x.zero();
    {
        cusparseHandle_t h;
        CKS(cusparseCreate(&h));
        cusparseSpMatDescr_t A;
        cusparseDnVecDescr_t X, Y;
        CKS(cusparseCreateCsr(&A, (int64_t)m, (int64_t)rows, (int64_t)n, rowptr.p, cols.p, vals.p,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                              CUDA_R_64F));
        CKS(cusparseCreateDnVec(&X, (int64_t)rows, x.p, CUDA_R_64F));
        CKS(cusparseCreateDnVec(&Y, (int64_t)m, y.p, CUDA_R_64F));
        const double alpha = 1, beta = 0;
        // The default algorithm (CSR_ALG1: rows that cross its blocks joined by atomics,
        // so not bitwise reproducible) and CSR_ALG2, cuSPARSE's deterministic one (same
        // bits every run, as mgpu's), each checked and timed.
        const struct {
            cusparseSpMVAlg_t alg;
            const char* library;
        } algs[] = {{CUSPARSE_SPMV_ALG_DEFAULT, "cusparse"},
                    {CUSPARSE_SPMV_CSR_ALG2, "cusparse-alg2"}};
        for (const auto& a : algs) {
            size_t bytes = 0;
            CKS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y,
                                        CUDA_R_64F, a.alg, &bytes));
            Temp buffer;
            buffer.need(std::max<size_t>(bytes, 1));
            auto call = [&] {
                CKS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y,
                                 CUDA_R_64F, a.alg, buffer.p));
            };
            if (s.verify) {
                // Dyadic check values: every product and partial sum is exact in f64, so any
                // summation order gives the CPU's result; the tolerance (1e-9 of the row's sum
                // of |a_ij x_j|, plus 1e-12) only guards against a library that rounds
                // differently (FMA contraction, another precision).
                std::vector<double> hv(n), hx(rows);
                for (size_t i = 0; i < n; i++) hv[i] = (double)((int)(i % 13) - 6) * 0.125;
                for (size_t j = 0; j < rows; j++) hx[j] = (double)((int)(j % 11) - 5) * 0.5;
                vals.up(hv);
                x.up(hx);
                call();
                auto got = y.down();
                for (size_t r = 0; r < m; r++) {
                    double want = 0, mag = 0;
                    for (int32_t k = hr[r]; k < hr[r + 1]; k++) {
                        double p = hv[k] * hx[hc[k]];
                        want += p, mag += std::fabs(p);
                    }
                    if (!(std::fabs(got[r] - want) <= 1e-9 * mag + 1e-12)) {
                        char b[160];
                        snprintf(b, sizeof b, ": row %zu got %.17g want %.17g", r, got[r], want);
                        mismatch(at_n("spmv_csr", "f64", input, n) + " " + a.library + b);
                    }
                }
                vals.zero();
                x.zero();
            }
            emit("spmv_csr", "f64", input, n, a.library, median_ms(call), s.copy);
        }
        CKS(cusparseDestroyDnVec(X));
        CKS(cusparseDestroyDnVec(Y));
        CKS(cusparseDestroySpMat(A));
        CKS(cusparseDestroy(h));
    }
    // The bound: n values and n columns streamed, x gathered at the real columns, the m row
    // starts read and m results written (mgpu-bench's bytes: 12 n + 12 m + 8 rows, x's part
    // as gathered); the faster of common.cuh's two kernels.
    {
        // spmv_bound_each over two waves, as it was measured (docs/segreduce.md).
        static int grid = resident_grid(spmv_bound), each = 2 * resident_grid(spmv_bound_each);
        size_t csr_vecs = vecs16(4 * m), y_vecs = vecs16(8 * m);
        Buf<int4> starts(csr_vecs);
        Buf<double2> out(y_vecs);
        starts.zero();
        float ms = std::min(median_ms([&] {
            spmv_bound<<<grid, 256>>>((const double2*)vals.p, (const int4*)cols.p, x.p, n / 4,
                                      starts.p, csr_vecs, out.p, y_vecs);
        }), median_ms([&] {
            spmv_bound_each<<<each, 256>>>(vals.p, cols.p, x.p, n, starts.p, csr_vecs, out.p, y_vecs);
        }));
        emit("spmv_csr", "f64", input, n, "bound", ms, s.copy);
    }
}

void segreduce_family(const Size& s) {
    const size_t n = s.n;
    for (uint32_t avg : {10u, 1000u}) {
        // mgpu-bench's `segreduce`: one stream per type, the same for both.
        Rng rng(0x5e9 ^ (uint64_t)n ^ avg);
        auto offsets = counts_covering(n, CountDist::uniform(2 * avg), rng);
        scan_exclusive_in_place(offsets);
        offsets.push_back((uint32_t)n);
        segreduce_rows<int32_t>(s, offsets, avg);
        segreduce_rows<double>(s, offsets, avg);
    }
    spmv_rows(s, false);
    spmv_rows(s, true);
    for (uint64_t avg : {10ull, 1000ull}) reduce_by_key_rows(s, avg);
}

// ---- sort: merge sorts, merge, radix sort -----------------------------------------------

struct LessOp {
    template <class T> __device__ __host__ bool operator()(const T& a, const T& b) const {
        return a < b;
    }
};

// timed: rows; otherwise one untimed call of each merge sort (sort1).
void sort_family(const Size& s, bool timed) {
    const size_t n = s.n;
    // mgpu-bench's `merge`: n i32 keys (the low 32 bits of each draw), then n u64 keys.
    Rng rng(0x3e ^ (uint64_t)n);
    std::vector<int32_t> h(n);
    for (auto& k : h) k = (int32_t)rng.next_u64();
    std::vector<int32_t> sorted;
    if (timed) {
        sorted = h;
        std::sort(sorted.begin(), sorted.end());
    }
    auto run = [&](auto& call, const char* op, const char* ty, const char* input) {
        if (timed) emit(op, ty, input, n, "cub", median_ms(call), s.copy);
        else call();
    };
    {
        Buf<int32_t> in(h), out(n);
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceMergeSort::SortKeysCopy(t, b, in.p, out.p, (int)n, LessOp{});
        });
        if (s.verify) {
            call();
            expect(out.down(), sorted, at_n("mergesort_keys", "i32", "random", n));
        }
        run(call, "mergesort_keys", "i32", "random");
    }
    {
        std::vector<uint64_t> w(n);
        for (auto& k : w) k = rng.next_u64();
        Buf<uint64_t> in(w), out(n);
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceMergeSort::SortKeysCopy(t, b, in.p, out.p, (int)n, LessOp{});
        });
        if (s.verify) {
            call();
            std::sort(w.begin(), w.end());
            expect(out.down(), w, at_n("mergesort_keys", "u64", "random", n));
        }
        run(call, "mergesort_keys", "u64", "random");
    }
    if (timed) {
        Buf<int32_t> in(sorted), out(n);
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceMergeSort::SortKeysCopy(t, b, in.p, out.p, (int)n, LessOp{});
        });
        if (s.verify) {
            call();
            expect(out.down(), sorted, at_n("mergesort_keys", "i32", "sorted", n));
        }
        run(call, "mergesort_keys", "i32", "sorted");
    }
    {
        std::vector<int32_t> idx(n);
        for (size_t i = 0; i < n; i++) idx[i] = (int32_t)i;
        Buf<int32_t> keys(h), values(idx), keys_out(n), values_out(n);
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceMergeSort::SortPairsCopy(t, b, keys.p, values.p, keys_out.p,
                                                       values_out.p, (int)n, LessOp{});
        });
        if (s.verify) {
            // Any correct sort (CUB does not promise stability): the keys sorted, and the
            // values a permutation that carries each key.
            call();
            auto what = at_n("mergesort_pairs", "i32", "random, values", n);
            expect(keys_out.down(), sorted, what + " keys");
            auto v = values_out.down();
            std::vector<char> seen(n, 0);
            for (size_t i = 0; i < n; i++) {
                if (v[i] < 0 || (size_t)v[i] >= n || seen[v[i]] || h[v[i]] != sorted[i])
                    mismatch(what + ": value at " + std::to_string(i) + " is " +
                             std::to_string(v[i]));
                seen[v[i]] = 1;
            }
        }
        run(call, "mergesort_pairs", "i32", "random, values");
    }
    if (!timed) return;
    {
        // Two sorted halves of the random keys; merged they are the sorted keys.
        std::vector<int32_t> halves = h;
        std::sort(halves.begin(), halves.begin() + n / 2);
        std::sort(halves.begin() + n / 2, halves.end());
        Buf<int32_t> in(halves), out(n);
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceMerge::MergeKeys(t, b, in.p, (int64_t)(n / 2), in.p + n / 2,
                                               (int64_t)(n - n / 2), out.p, LessOp{});
        });
        if (s.verify) {
            call();
            expect(out.down(), sorted, at_n("merge_keys", "i32", "two sorted halves", n));
        }
        run(call, "merge_keys", "i32", "two sorted halves");
    }
    {
        Buf<int32_t> in(h), out(n);
        auto call = cub_call([&](void* t, size_t& b) {
            return cub::DeviceRadixSort::SortKeys(t, b, in.p, out.p, (int)n);
        });
        if (s.verify) {
            call();
            expect(out.down(), sorted, at_n("radixsort_keys", "i32", "random", n));
        }
        run(call, "radixsort_keys", "i32", "random");
    }
}

// ---- main -------------------------------------------------------------------------------

[[noreturn]] void usage() {
    printf("usage: peers [scan] [intervals] [bulk] [segreduce] [sort] [--sizes 20,24,27]   |   "
           "peers sort1\n");
    exit(2);
}

int main(int argc, char** argv) {
    std::vector<std::string> families;
    std::vector<int> sizes = {20, 24, 27};
    bool sort1 = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--sizes") {
            if (++i >= argc) usage();
            sizes.clear();
            for (const char* p = argv[i]; *p;) {
                char* end;
                long v = strtol(p, &end, 10);
                if (end == p || v < 4 || v > 30) usage();
                sizes.push_back((int)v);
                p = *end == ',' ? end + 1 : end;
                if (*end && *end != ',') usage();
            }
            if (sizes.empty()) usage();
        } else if (a == "sort1") {
            sort1 = true;
        } else if (a == "scan" || a == "intervals" || a == "bulk" || a == "segreduce" ||
                   a == "sort") {
            families.push_back(a);
        } else {
            usage();
        }
    }
    auto wants = [&](const char* f) {
        return families.empty() || std::find(families.begin(), families.end(), f) != families.end();
    };
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# device\t%s\n", prop.name);
    int sp_major = 0, sp_minor = 0, sp_patch = 0;
    CKS(cusparseGetProperty(MAJOR_VERSION, &sp_major));
    CKS(cusparseGetProperty(MINOR_VERSION, &sp_minor));
    CKS(cusparseGetProperty(PATCH_LEVEL, &sp_patch));
    printf("# peers.cu\tCCCL %d.%d.%d\tcuSPARSE %d.%d.%d\tCUDA runtime %d\t%d SMs\n",
           CCCL_MAJOR_VERSION, CCCL_MINOR_VERSION, CCCL_PATCH_VERSION, sp_major, sp_minor,
           sp_patch, CUDART_VERSION, prop.multiProcessorCount);
    printf("# columns\trow\top\ttype\tinput\tn\tlibrary\tms\tcopy_ratio\n");
    if (sort1) {
        Size s{24, 1ull << 24, 1.0f, false};
        sort_family(s, false);
        CK(cudaDeviceSynchronize());
        return 0;
    }
    const int smallest = *std::min_element(sizes.begin(), sizes.end());
    for (int lg : sizes) {
        Size s{lg, 1ull << lg, 0.0f, lg == smallest};
        s.copy = copy_ms(s.n);
        printf("# copy\t%zu\t%.5f\n", s.n, s.copy);
        fflush(stdout);
        if (wants("scan")) scan_family(s);
        if (wants("intervals")) intervals_family(s);
        if (wants("bulk")) bulk_family(s);
        if (wants("segreduce")) segreduce_family(s);
        if (wants("sort")) sort_family(s, true);
        if (s.verify) printf("# checked\t%zu\tevery cub/cusparse row matches the CPU\n", s.n);
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
