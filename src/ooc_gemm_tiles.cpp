// The out-of-core GEMM's tile schedule (include/cuprim/ooc/gemm.hpp) on the out-of-core pipeline's machinery
// (include/cuprim/ooc/streams.hpp, staging.hpp): its lanes (serial, two_way or three_way), handoffs between the
// stages, page-locked staging from the cache, and host copies in stream order by the staging threads.
//
// Slot sl (tile t in slot t mod S) owns a C tile buffer and a B panel buffer (and an A panel buffer when the tiles
// do not share A's row panel); the shared A row panels have a ring of their own (a_bufs). The handoffs:
//   loaded      in → compute   the slot's panels are on the device
//   panel_free  compute → in   the slot's panel buffers are no longer read
//   computed    compute → out  the slot's tile is complete
//   stored      out → in       the slot's tile is back on the host (its C buffer may be reloaded)
//   a_loaded    in → compute   an A row panel is on the device (ring index)
//   a_free      compute → in   the last tile of its row has read it
// Stores trail the loads by one tile (when there are two slots or more), so a copy stream that carries both
// directions (two_way) never waits for a tile's compute before loading the next one.
#include "ooc_gemm.hpp"

#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/ooc/plan.hpp>
#include <cuprim/ooc/staging.hpp>
#include <cuprim/ooc/streams.hpp>
#include <cuprim/ooc/tuning.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace cuprim::ooc::detail {
namespace {

lane_layout lanes_of(gemm_mode mode) {
  return mode == gemm_mode::serial ? lane_layout::serial
         : mode == gemm_mode::two_way ? lane_layout::two_way
                                      : lane_layout::three_way;
}

/// A 2-D block of a host or device array: rows x cols elements, leading dimension ld (elements).
template <class T>
struct block2d {
  T* p;
  std::int64_t ld, rows, cols;
};

/// The position of a tile in C.
struct tile_pos {
  std::int64_t index, r0, rows, c0, cols;
};

/// The GPU part of one call: buffers, handoffs and the issue loop.
template <class T>
class tile_schedule {
public:
  tile_schedule(const gemm_shape& s, const gemm_tiling& t, gemm_mode mode, std::int64_t gpu_n, T alpha, const T* A,
                const T* B, T beta, T* C, bool stage_a, bool stage_b, bool stage_c, gemm_tile_engine<T>& engine)
      : s_(s), t_(t), gpu_n_(gpu_n), alpha_(alpha), beta_(beta), A_(A), B_(B), C_(C), engine_(engine),
        stage_a_(stage_a), stage_b_(stage_b), stage_c_(stage_c),
        core_(lanes_of(mode), t.slots, stage_a || stage_b || stage_c ? staging_threads() : 1),
        loaded_(core_.streams(), stage::in, stage::compute, t.slots),
        panel_free_(core_.streams(), stage::compute, stage::in, t.slots),
        computed_(core_.streams(), stage::compute, stage::out, t.slots),
        stored_(core_.streams(), stage::out, stage::in, t.slots),
        a_loaded_(core_.streams(), stage::in, stage::compute, t.a_bufs),
        a_free_(core_.streams(), stage::compute, stage::in, t.a_bufs) {
    const int S = t.slots;
    const cudaStream_t in = core_.stream(stage::in, 0);
    // Device buffers (from the current resource, released in stream order on the H2D stream after everything).
    const std::size_t c_el = std::size_t(t.mt) * std::size_t(t.nt), b_el = std::size_t(t.kb) * std::size_t(t.nt),
                      a_el = std::size_t(t.mt) * std::size_t(t.kb);
    for (int i = 0; i < S; ++i) {
      cbuf_.emplace_back(c_el, in);
      bbuf_.emplace_back(b_el, in);
    }
    for (int i = 0; i < t.a_bufs; ++i) abuf_.emplace_back(a_el, in);
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(in));  // allocations ordered before the other streams use them
    // Page-locked staging for pageable arrays: one tile's worth per buffer.
    if (stage_c_)
      for (int i = 0; i < S; ++i) cstage_.emplace_back(c_el * sizeof(T));
    if (stage_b_)
      for (int i = 0; i < S; ++i) bstage_.emplace_back(b_el * sizeof(T));
    if (stage_a_)
      for (int i = 0; i < t.a_bufs; ++i) astage_.emplace_back(a_el * sizeof(T));
  }
  tile_schedule(const tile_schedule&) = delete;
  tile_schedule& operator=(const tile_schedule&) = delete;
  ~tile_schedule() { core_.streams().synchronize(); }  // (also when unwinding an exception)

  gemm_tiles_done run() {
    const std::int64_t tiles_m = (s_.m + t_.mt - 1) / t_.mt, tiles_n = (gpu_n_ + t_.nt - 1) / t_.nt;
    const int lag = t_.slots == 1 ? 0 : 1;
    std::int64_t t = 0;
    std::deque<tile_pos> pending;  // tiles computed, store not yet issued
    for (std::int64_t i = 0; i < tiles_m; ++i) {
      const std::int64_t r0 = i * t_.mt, rows = std::min(t_.mt, s_.m - r0);
      const int ab = t_.a_shared ? int(i % t_.a_bufs) : 0;
      if (t_.a_shared) load_shared_a(r0, rows, ab);
      for (std::int64_t j = 0; j < tiles_n; ++j, ++t) {
        const std::int64_t c0 = j * t_.nt;
        const tile_pos tile{t, r0, rows, c0, std::min(t_.nt, gpu_n_ - c0)};
        compute_tile(tile, ab, j == tiles_n - 1);
        pending.push_back(tile);
        if (std::int64_t(pending.size()) > lag) {
          store(pending.front());
          pending.pop_front();
        }
      }
    }
    for (; !pending.empty(); pending.pop_front()) store(pending.front());
    core_.streams().synchronize_checked();
    done_.tiles = t;
    return done_;
  }

private:
  static int staging_threads() { return host_thread_count({}, ooc_policy_for(current_tuned_arch())); }
  cudaStream_t stream(stage st) const { return core_.stream(st, 0); }

  /// A's row panel [r0, r0 + rows) x [0, k), shared by the tiles of the row: ring buffer ab.
  void load_shared_a(std::int64_t r0, std::int64_t rows, int ab) {
    a_free_.wait(ab);
    load_a(r0, rows, 0, s_.k, abuf_[std::size_t(ab)].data(), stage_a_ ? astage_[std::size_t(ab)].as<T>() : nullptr);
    a_loaded_.record(ab);
  }

  /// Loads tile `tile`'s C (unless beta == 0) and accumulates its k-panels; `last_in_row` frees the shared A panel.
  void compute_tile(const tile_pos& tile, int ab, bool last_in_row) {
    const int sl = int(tile.index % t_.slots);
    T* cb = cbuf_[std::size_t(sl)].data();
    stored_.wait(sl);  // the slot's previous tile is back on the host
    if (t_.c_in)
      copy_in(block2d<T>{C_ + tile.r0 + tile.c0 * s_.ldc, s_.ldc, tile.rows, tile.cols}, cb,
              stage_c_ ? cstage_[std::size_t(sl)].as<T>() : nullptr);
    if (t_.a_shared) a_loaded_.wait(ab);
    const std::int64_t kpanels = (s_.k + t_.kb - 1) / t_.kb;
    for (std::int64_t p = 0; p < kpanels; ++p) {
      const std::int64_t k0 = p * t_.kb, depth = std::min(t_.kb, s_.k - k0);
      panel_free_.wait(sl);  // the slot's panel buffers are no longer read
      T* ap = t_.a_shared ? abuf_[std::size_t(ab)].data() : abuf_[std::size_t(sl)].data();
      if (!t_.a_shared)
        load_a(tile.r0, tile.rows, k0, depth, ap, stage_a_ ? astage_[std::size_t(sl)].as<T>() : nullptr);
      T* bp = bbuf_[std::size_t(sl)].data();
      load_b(k0, depth, tile.c0, tile.cols, bp, stage_b_ ? bstage_[std::size_t(sl)].as<T>() : nullptr);
      loaded_.record(sl);
      loaded_.wait(sl);
      const int lda_d = s_.ta == 'N' ? int(tile.rows) : int(depth);
      const int ldb_d = s_.tb == 'N' ? int(depth) : int(tile.cols);
      const T beta_p = p == 0 ? (t_.c_in ? beta_ : T(0)) : T(1);
      engine_.gemm(stream(stage::compute), s_.ta, s_.tb, int(tile.rows), int(tile.cols), int(depth), alpha_, ap,
                   lda_d, bp, ldb_d, beta_p, cb, int(tile.rows));
      panel_free_.record(sl);
    }
    computed_.record(sl);
    if (t_.a_shared && last_in_row) a_free_.record(ab);
  }

  /// Host block -> contiguous device buffer (leading dimension = rows), on the H2D stream; through `staging` (a
  /// page-locked buffer of the same shape, filled in stream order) when not null.
  void copy_in(block2d<T> src, T* dev, T* staging) {
    if (src.rows == 0 || src.cols == 0) return;
    const std::size_t width = std::size_t(src.rows) * sizeof(T);
    const T* from = src.p;
    std::int64_t from_ld = src.ld;
    if (staging) {
      core_.host_copy_async(stream(stage::in), {staging, width}, {src.p, std::size_t(src.ld) * sizeof(T)}, width,
                            std::size_t(src.cols));
      from = staging;
      from_ld = src.rows;
    }
    CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(dev, width, from, std::size_t(from_ld) * sizeof(T), width,
                                        std::size_t(src.cols), cudaMemcpyHostToDevice, stream(stage::in)));
    done_.bytes_h2d += double(src.rows) * double(src.cols) * sizeof(T);
  }

  /// op(A)(r0 .. r0+rows, k0 .. k0+depth) as stored.
  void load_a(std::int64_t r0, std::int64_t rows, std::int64_t k0, std::int64_t depth, T* dev, T* staging) {
    T* a = const_cast<T*>(A_);
    if (s_.ta == 'N') copy_in(block2d<T>{a + r0 + k0 * s_.lda, s_.lda, rows, depth}, dev, staging);
    else copy_in(block2d<T>{a + k0 + r0 * s_.lda, s_.lda, depth, rows}, dev, staging);
  }
  /// op(B)(k0 .. k0+depth, c0 .. c0+cols) as stored.
  void load_b(std::int64_t k0, std::int64_t depth, std::int64_t c0, std::int64_t cols, T* dev, T* staging) {
    T* b = const_cast<T*>(B_);
    if (s_.tb == 'N') copy_in(block2d<T>{b + k0 + c0 * s_.ldb, s_.ldb, depth, cols}, dev, staging);
    else copy_in(block2d<T>{b + c0 + k0 * s_.ldb, s_.ldb, cols, depth}, dev, staging);
  }

  /// The tile's C back to the host on the D2H stream (through the slot's staging for a pageable C).
  void store(const tile_pos& tile) {
    const int sl = int(tile.index % t_.slots);
    const cudaStream_t out = stream(stage::out);
    const std::size_t width = std::size_t(tile.rows) * sizeof(T);
    computed_.wait(sl);
    T* dst = C_ + tile.r0 + tile.c0 * s_.ldc;
    const T* cb = cbuf_[std::size_t(sl)].data();
    if (stage_c_) {
      T* st = cstage_[std::size_t(sl)].as<T>();
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(st, cb, width * std::size_t(tile.cols), cudaMemcpyDeviceToHost, out));
      core_.host_copy_async(out, {dst, std::size_t(s_.ldc) * sizeof(T)}, {st, width}, width, std::size_t(tile.cols));
    } else {
      CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(dst, std::size_t(s_.ldc) * sizeof(T), cb, width, width,
                                          std::size_t(tile.cols), cudaMemcpyDeviceToHost, out));
    }
    stored_.record(sl);
    done_.bytes_d2h += double(tile.rows) * double(tile.cols) * sizeof(T);
  }

  gemm_shape s_;
  gemm_tiling t_;
  std::int64_t gpu_n_;
  T alpha_, beta_;
  const T* A_;
  const T* B_;
  T* C_;
  gemm_tile_engine<T>& engine_;
  bool stage_a_, stage_b_, stage_c_;
  gemm_tiles_done done_;
  // Destroyed in reverse order: ~tile_schedule has waited for every stream; then the staging buffers go back to
  // the cache, the device buffers are released in order on the H2D stream, the events go, and the core (staging
  // threads, pending host copies, streams) last.
  pipeline_core core_;
  handoff loaded_, panel_free_, computed_, stored_, a_loaded_, a_free_;
  std::vector<device_buffer<T>> cbuf_, bbuf_, abuf_;
  std::vector<staging_buffer> cstage_, bstage_, astage_;
};

}  // namespace

template <class T>
gemm_tiles_done run_tiles(const gemm_shape& s, const gemm_tiling& t, gemm_mode mode, std::int64_t gpu_n, T alpha,
                          const T* A, const T* B, T beta, T* C, bool stage_a, bool stage_b, bool stage_c,
                          gemm_tile_engine<T>& engine) {
  tile_schedule<T> schedule(s, t, mode, gpu_n, alpha, A, B, beta, C, stage_a, stage_b, stage_c, engine);
  return schedule.run();
}

template gemm_tiles_done run_tiles<float>(const gemm_shape&, const gemm_tiling&, gemm_mode, std::int64_t, float,
                                          const float*, const float*, float, float*, bool, bool, bool,
                                          gemm_tile_engine<float>&);
template gemm_tiles_done run_tiles<double>(const gemm_shape&, const gemm_tiling&, gemm_mode, std::int64_t, double,
                                           const double*, const double*, double, double*, bool, bool, bool,
                                           gemm_tile_engine<double>&);

}  // namespace cuprim::ooc::detail
