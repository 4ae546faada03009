// The out-of-core GEMM's tile schedule (include/cuprim/ooc/gemm.hpp) on the out-of-core pipeline's machinery
// (include/cuprim/ooc/streams.hpp, staging.hpp): its lanes (serial, two_way or three_way; three_way_staged when an
// array is pageable), handoffs between the stages, pageable arrays locked in place or staged through page-locked
// buffers from the cache, and host copies in stream order by the staging threads.
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
//
// Pageable arrays. Locked in place (register_in_place), an array is copied like page-locked memory, each copy cut
// where the locked ranges meet so that every DMA reads or writes one registration; its pieces are locked as the issue
// loop reaches them, the next tile's right after a tile is issued, so that locking overlaps the device's work on the
// tiles before. Where a copy touches a page that could not be locked it is staged. Staged, a block is packed into a
// page-locked buffer by a host function on the pack lane before its H2D copy, and unpacked by one on the unpack lane
// after its D2H copy (in three_way_staged, streams of their own: packing one tile overlaps the DMA of another); the
// buffers of each kind (C in, C out, B panels, A panels) hand over with two events each: ready (packed, or landed)
// and reusable (copied out, or unpacked).
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

/// The default size of the pieces C and B are locked in (gemm_options::register_piece_bytes = 0).
constexpr std::size_t default_piece_bytes = std::size_t(64) << 20;

/// gemm_pageable::automatic times locking once this much is locked, and goes on locking only at auto_lock_gbps or
/// more; below that, what is not locked yet is staged. Why that rate: a byte of C is sent twice (in and out), so
/// staging costs two host copies per byte, about 2 / 27 ns at the 27 GB/s of 8 staging threads on the H100 host
/// (the pageable rows of `cuprim-lab ooc`), while locking costs locking and unlocking it once: with unlocking taken
/// to be as slow as locking (the pessimistic side), 2 / R; the two meet at R = 27 GB/s, and locking overlaps the
/// copies where staging competes with them for host memory bandwidth, hence a little lower.
constexpr std::size_t judge_locked_bytes = std::size_t(16) << 20;
constexpr double auto_lock_gbps = 20.0;

lane_layout lanes_of(gemm_mode mode, bool staged) {
  if (mode == gemm_mode::serial) return lane_layout::serial;
  if (mode == gemm_mode::two_way) return lane_layout::two_way;
  return staged ? lane_layout::three_way_staged : lane_layout::three_way;
}

/// A 2-D block of a host or device array: rows x cols elements, leading dimension ld (elements).
template <class T>
struct block2d {
  T* p;
  std::int64_t ld, rows, cols;
  std::size_t width() const { return std::size_t(rows) * sizeof(T); }  // bytes of a column
  std::size_t pitch() const { return std::size_t(ld) * sizeof(T); }
};

/// The position of a tile in C.
struct tile_pos {
  std::int64_t index, r0, rows, c0, cols;
};

/// Where one array is locked in place: its pieces (whole pages, in address order), locked as the tiles reach them.
class pin_plan {
public:
  /// The span [p, p + bytes) as one piece.
  void whole(const void* p, std::size_t bytes) {
    const std::uintptr_t page = host_page_bytes(), b = reinterpret_cast<std::uintptr_t>(p);
    pieces_.push_back({b / page * page, (b + bytes + page - 1) / page * page});
  }
  /// Columns [0, cols) of a column-major array (column j at base + j × pitch bytes, of which `used` are read or
  /// written), in pieces of whole tiles of `tile_cols` columns: the first piece one tile, each next one twice the one
  /// before, up to about `piece_bytes`. A piece ends at the end of the page that holds its last column's last byte,
  /// so the columns of a tile lie in its piece and (for the first tile of a piece) the piece before.
  void columns(const void* base, std::size_t pitch, std::size_t used, std::int64_t cols, std::int64_t tile_cols,
               std::size_t piece_bytes) {
    const std::uintptr_t page = host_page_bytes(), b = reinterpret_cast<std::uintptr_t>(base);
    const std::int64_t most =
        std::max<std::int64_t>(1, std::int64_t(piece_bytes / std::max<std::size_t>(1, std::size_t(tile_cols) * pitch)));
    std::uintptr_t lo = b / page * page;
    std::int64_t tiles = 1;
    for (std::int64_t c = 0; c < cols;) {
      const std::int64_t next = std::min(cols, c + tiles * tile_cols);
      const std::uintptr_t hi = (b + std::size_t(next - 1) * pitch + used + page - 1) / page * page;
      if (hi > lo) {  // (tiny columns: several tiles can end in one page; the next piece takes them)
        pieces_.push_back({lo, hi});
        lo = hi;
      }
      c = next;
      tiles = tiles > most / 2 ? most : 2 * tiles;
    }
  }
  /// Locks the pieces that start before `end` (the end of the next copy's span) and were not tried yet. A piece
  /// refused is not tried again: the copies that touch it are staged.
  void reach(host_registrations& pins, const void* end, bool read_only) {
    const auto e = reinterpret_cast<std::uintptr_t>(end);
    for (; next_ < pieces_.size() && pieces_[next_].lo < e; ++next_) {
      const piece& p = pieces_[next_];
      if (pins.add(reinterpret_cast<const void*>(p.lo), p.hi - p.lo, read_only)) locked_ = true;
    }
  }
  bool locked() const noexcept { return locked_; }
  /// No more pieces are locked (the copies that need them are staged).
  void stop() noexcept { next_ = pieces_.size(); }

private:
  struct piece {
    std::uintptr_t lo, hi;
  };
  std::vector<piece> pieces_;
  std::size_t next_ = 0;
  bool locked_ = false;
};

/// One of A, B, C: how it reaches the copy engines, where it is locked, whether a copy of it was staged.
struct host_array {
  host_access access;
  bool read_only;
  pin_plan pins;
  bool staged = false;
};

/// Page-locked staging buffers of one kind (C tiles in or out, B panels, A panels), taken from the cache when first
/// needed, with the handoffs between the stage that fills them and the stage that empties them: `ready` (filled:
/// packed by the host, or landed by the D2H copy) and `reusable` (emptied: copied to the device, or unpacked).
class staging_set {
public:
  staging_set(const lanes& l, stage fills, stage empties, int count, std::size_t bytes)
      : ready(l, fills, empties, count), reusable(l, empties, fills, count), count_(count), bytes_(bytes) {}
  /// Takes the buffers from the cache (done at construction for arrays that are staged from the start: a
  /// page-locked allocation in the middle of a run may wait for the device).
  void reserve() {
    if (!bufs_.empty()) return;
    std::vector<staging_buffer> b;
    for (int i = 0; i < count_; ++i) b.emplace_back(bytes_);
    bufs_ = std::move(b);
  }
  template <class T>
  T* at(int i) {
    reserve();
    return bufs_[std::size_t(i)].as<T>();
  }
  handoff ready, reusable;

private:
  int count_;
  std::size_t bytes_;
  std::vector<staging_buffer> bufs_;
};

/// The GPU part of one call: buffers, handoffs and the issue loop.
template <class T>
class tile_schedule {
public:
  tile_schedule(const gemm_shape& s, const gemm_tiling& t, gemm_mode mode, std::int64_t gpu_n, T alpha, const T* A,
                const T* B, T beta, T* C, const gemm_access& access, gemm_tile_engine<T>& engine)
      : s_(s), t_(t), gpu_n_(gpu_n), alpha_(alpha), beta_(beta), A_(A), B_(B), C_(C), engine_(engine),
        adaptive_(access.adaptive),
        threads_(access.pageable() ? (access.host_threads ? access.host_threads : staging_threads()) : 1),
        a_{access.a, true, {}}, b_{access.b, true, {}}, c_{access.c, false, {}},
        core_(lanes_of(mode, access.pageable()), t.slots, threads_),
        loaded_(core_.streams(), stage::in, stage::compute, t.slots),
        panel_free_(core_.streams(), stage::compute, stage::in, t.slots),
        computed_(core_.streams(), stage::compute, stage::out, t.slots),
        stored_(core_.streams(), stage::out, stage::in, t.slots),
        a_loaded_(core_.streams(), stage::in, stage::compute, t.a_bufs),
        a_free_(core_.streams(), stage::compute, stage::in, t.a_bufs),
        cin_(core_.streams(), stage::pack, stage::in, t.slots, std::size_t(t.mt) * std::size_t(t.nt) * sizeof(T)),
        cout_(core_.streams(), stage::out, stage::unpack, t.slots, std::size_t(t.mt) * std::size_t(t.nt) * sizeof(T)),
        bst_(core_.streams(), stage::pack, stage::in, t.slots, std::size_t(t.kb) * std::size_t(t.nt) * sizeof(T)),
        ast_(core_.streams(), stage::pack, stage::in, t.a_bufs, std::size_t(t.mt) * std::size_t(t.kb) * sizeof(T)) {
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
    // Page-locked staging for the arrays staged from the start: one tile's worth per buffer.
    if (c_.access == host_access::stage) {
      if (t.c_in) cin_.reserve();
      cout_.reserve();
    }
    if (b_.access == host_access::stage) bst_.reserve();
    if (a_.access == host_access::stage) ast_.reserve();
    plan_locking(access.piece_bytes ? access.piece_bytes : default_piece_bytes);
  }
  tile_schedule(const tile_schedule&) = delete;
  tile_schedule& operator=(const tile_schedule&) = delete;
  ~tile_schedule() { core_.streams().synchronize(); }  // (also when unwinding an exception)

  gemm_tiles_done run() {
    const std::int64_t tiles_m = (s_.m + t_.mt - 1) / t_.mt, tiles_n = (gpu_n_ + t_.nt - 1) / t_.nt;
    const int lag = t_.slots == 1 ? 0 : 1;
    std::int64_t t = 0;
    std::deque<tile_pos> pending;  // tiles computed, store not yet issued
    lock_for(tile_at(0, tiles_n));
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
        if (t + 1 < tiles_m * tiles_n) lock_for(tile_at(t + 1, tiles_n));  // while the device works on this one
      }
    }
    for (; !pending.empty(); pending.pop_front()) store(pending.front());
    core_.streams().synchronize_checked();
    pins_.release();  // every copy from the locked pages is done
    done_.tiles = t;
    done_.staged_a = a_.staged;
    done_.staged_b = b_.staged;
    done_.staged_c = c_.staged;
    done_.registered_a = a_.pins.locked();
    done_.registered_b = b_.pins.locked();
    done_.registered_c = c_.pins.locked();
    done_.register_ms = pins_.lock_ms();
    done_.unregister_ms = pins_.unlock_ms();
    done_.host_threads = threads_;
    return done_;
  }

private:
  static int staging_threads() { return host_thread_count({}, ooc_policy_for(current_tuned_arch())); }
  cudaStream_t stream(stage st) const { return core_.stream(st, 0); }

  /// Tile t in issue order (rows of tiles, then columns).
  tile_pos tile_at(std::int64_t t, std::int64_t tiles_n) const {
    const std::int64_t r0 = t / tiles_n * t_.mt, c0 = t % tiles_n * t_.nt;
    return {t, r0, std::min(t_.mt, s_.m - r0), c0, std::min(t_.nt, gpu_n_ - c0)};
  }

  /// Where the arrays locked in place are locked: A whole (a tile row needs all of its row panel at once); C, and
  /// B when its tile panels are column ranges (transb == 'N'), in pieces along the tiles' columns, or whole.
  void plan_locking(std::size_t piece_bytes) {
    const std::size_t e = sizeof(T);
    const bool whole = piece_bytes == SIZE_MAX;
    if (a_.access == host_access::register_in_place) {
      const std::int64_t a_rows = s_.ta == 'N' ? s_.m : s_.k, a_cols = s_.ta == 'N' ? s_.k : s_.m;
      a_.pins.whole(A_, std::size_t((a_cols - 1) * s_.lda + a_rows) * e);
    }
    if (b_.access == host_access::register_in_place) {
      if (s_.tb == 'N' && !whole)
        b_.pins.columns(B_, std::size_t(s_.ldb) * e, std::size_t(s_.k) * e, gpu_n_, t_.nt, piece_bytes);
      else if (s_.tb == 'N')
        b_.pins.whole(B_, std::size_t((gpu_n_ - 1) * s_.ldb + s_.k) * e);
      else
        b_.pins.whole(B_, std::size_t((s_.k - 1) * s_.ldb + gpu_n_) * e);
    }
    if (c_.access == host_access::register_in_place) {
      if (!whole) c_.pins.columns(C_, std::size_t(s_.ldc) * e, std::size_t(s_.m) * e, gpu_n_, t_.nt, piece_bytes);
      else c_.pins.whole(C_, std::size_t((gpu_n_ - 1) * s_.ldc + s_.m) * e);
    }
  }

  /// Locks what tile `tile` copies of the arrays locked in place, where not locked yet.
  void lock_for(const tile_pos& tile) {
    if (a_.access == host_access::register_in_place) a_.pins.reach(pins_, A_ + 1, a_.read_only);  // (whole)
    if (b_.access == host_access::register_in_place) {
      const T* end = s_.tb == 'N' ? B_ + (tile.c0 + tile.cols - 1) * s_.ldb + s_.k
                                  : B_ + (s_.k - 1) * s_.ldb + tile.c0 + tile.cols;
      b_.pins.reach(pins_, end, b_.read_only);
    }
    if (c_.access == host_access::register_in_place)
      c_.pins.reach(pins_, C_ + (tile.c0 + tile.cols - 1) * s_.ldc + tile.r0 + tile.rows, c_.read_only);
    if (adaptive_) judge_locking();
  }

  /// gemm_pageable::automatic: once enough is locked to time it, goes on locking only if locking runs at
  /// auto_lock_gbps or more; otherwise the pieces not locked yet are staged (those locked are copied directly).
  void judge_locking() {
    if (judged_ || pins_.locked_bytes() < judge_locked_bytes) return;
    judged_ = true;
    const double gbps = double(pins_.locked_bytes()) / (pins_.lock_ms() * 1e6);
    if (gbps >= auto_lock_gbps) return;
    a_.pins.stop();
    b_.pins.stop();
    c_.pins.stop();
  }

  /// A's row panel [r0, r0 + rows) x [0, k), shared by the tiles of the row: ring buffer ab.
  void load_shared_a(std::int64_t r0, std::int64_t rows, int ab) {
    a_free_.wait(ab);
    load_a(r0, rows, 0, s_.k, abuf_[std::size_t(ab)].data(), ab);
    a_loaded_.record(ab);
  }

  /// Loads tile `tile`'s C (unless beta == 0) and accumulates its k-panels; `last_in_row` frees the shared A panel.
  void compute_tile(const tile_pos& tile, int ab, bool last_in_row) {
    const int sl = int(tile.index % t_.slots);
    T* cb = cbuf_[std::size_t(sl)].data();
    stored_.wait(sl);  // the slot's previous tile is back on the host
    if (t_.c_in)
      copy_in(c_, block2d<const T>{C_ + tile.r0 + tile.c0 * s_.ldc, s_.ldc, tile.rows, tile.cols}, cb, cin_, sl);
    if (t_.a_shared) a_loaded_.wait(ab);
    const std::int64_t kpanels = (s_.k + t_.kb - 1) / t_.kb;
    for (std::int64_t p = 0; p < kpanels; ++p) {
      const std::int64_t k0 = p * t_.kb, depth = std::min(t_.kb, s_.k - k0);
      panel_free_.wait(sl);  // the slot's panel buffers are no longer read
      T* ap = t_.a_shared ? abuf_[std::size_t(ab)].data() : abuf_[std::size_t(sl)].data();
      if (!t_.a_shared) load_a(tile.r0, tile.rows, k0, depth, ap, sl);
      T* bp = bbuf_[std::size_t(sl)].data();
      load_b(k0, depth, tile.c0, tile.cols, bp, sl);
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

  /// Host block of array `x` -> contiguous device buffer (leading dimension = rows), on the H2D stream: straight
  /// from page-locked memory (the caller's, or pages locked in place), else through buffer `buf` of `set`.
  void copy_in(host_array& x, block2d<const T> src, T* dev, staging_set& set, int buf) {
    if (src.rows == 0 || src.cols == 0) return;
    const cudaStream_t in = stream(stage::in);
    const std::size_t width = src.width(), pitch = src.pitch(), cols = std::size_t(src.cols);
    done_.bytes_h2d += double(width) * double(cols);
    if (x.access == host_access::direct) {
      CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(dev, width, src.p, pitch, width, cols, cudaMemcpyHostToDevice, in));
      return;
    }
    auto* d = reinterpret_cast<char*>(dev);
    const auto* h = reinterpret_cast<const char*>(src.p);
    if (x.access == host_access::register_in_place &&
        pins_.for_each_locked_part(src.p, width, pitch, cols, false, [&](const block_part& q) {
          CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(d + q.first * width + q.offset, width, h + q.first * pitch + q.offset,
                                              pitch, q.bytes, q.count, cudaMemcpyHostToDevice, in));
        }))
      return;
    x.staged = true;
    T* st = set.at<T>(buf);
    set.reusable.wait(buf);  // the buffer's previous H2D copy is done
    core_.host_copy_async(stream(stage::pack), {st, width}, {const_cast<T*>(src.p), pitch}, width, cols);
    set.ready.record(buf);
    set.ready.wait(buf);
    CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(dev, width, st, width, width, cols, cudaMemcpyHostToDevice, in));
    set.reusable.record(buf);
  }

  /// Contiguous device buffer -> host block of array `x`, on the D2H stream: straight into page-locked memory,
  /// else through buffer `buf` of `set`, drained into the block by the unpack lane.
  void copy_out(host_array& x, const T* dev, block2d<T> dst, staging_set& set, int buf) {
    if (dst.rows == 0 || dst.cols == 0) return;
    const cudaStream_t out = stream(stage::out);
    const std::size_t width = dst.width(), pitch = dst.pitch(), cols = std::size_t(dst.cols);
    done_.bytes_d2h += double(width) * double(cols);
    if (x.access == host_access::direct) {
      CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(dst.p, pitch, dev, width, width, cols, cudaMemcpyDeviceToHost, out));
      return;
    }
    const auto* d = reinterpret_cast<const char*>(dev);
    auto* h = reinterpret_cast<char*>(dst.p);
    if (x.access == host_access::register_in_place &&
        pins_.for_each_locked_part(dst.p, width, pitch, cols, true, [&](const block_part& q) {
          CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(h + q.first * pitch + q.offset, pitch, d + q.first * width + q.offset,
                                              width, q.bytes, q.count, cudaMemcpyDeviceToHost, out));
        }))
      return;
    x.staged = true;
    T* st = set.at<T>(buf);
    set.reusable.wait(buf);  // the buffer's previous unpack is done
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(st, dev, width * cols, cudaMemcpyDeviceToHost, out));
    set.ready.record(buf);
    set.ready.wait(buf);
    core_.host_copy_async(stream(stage::unpack), {dst.p, pitch}, {st, width}, width, cols);
    set.reusable.record(buf);
  }

  /// op(A)(r0 .. r0+rows, k0 .. k0+depth) as stored, through A's staging buffer `buf` if it is staged.
  void load_a(std::int64_t r0, std::int64_t rows, std::int64_t k0, std::int64_t depth, T* dev, int buf) {
    if (s_.ta == 'N') copy_in(a_, block2d<const T>{A_ + r0 + k0 * s_.lda, s_.lda, rows, depth}, dev, ast_, buf);
    else copy_in(a_, block2d<const T>{A_ + k0 + r0 * s_.lda, s_.lda, depth, rows}, dev, ast_, buf);
  }
  /// op(B)(k0 .. k0+depth, c0 .. c0+cols) as stored, through B's staging buffer `buf` if it is staged.
  void load_b(std::int64_t k0, std::int64_t depth, std::int64_t c0, std::int64_t cols, T* dev, int buf) {
    if (s_.tb == 'N') copy_in(b_, block2d<const T>{B_ + k0 + c0 * s_.ldb, s_.ldb, depth, cols}, dev, bst_, buf);
    else copy_in(b_, block2d<const T>{B_ + c0 + k0 * s_.ldb, s_.ldb, cols, depth}, dev, bst_, buf);
  }

  /// The tile's C back to the host on the D2H stream.
  void store(const tile_pos& tile) {
    const int sl = int(tile.index % t_.slots);
    computed_.wait(sl);
    const block2d<T> dst{C_ + tile.r0 + tile.c0 * s_.ldc, s_.ldc, tile.rows, tile.cols};
    copy_out(c_, cbuf_[std::size_t(sl)].data(), dst, cout_, sl);
    stored_.record(sl);  // the slot's device C buffer may be reloaded (its D2H copy is done)
  }

  gemm_shape s_;
  gemm_tiling t_;
  std::int64_t gpu_n_;
  T alpha_, beta_;
  const T* A_;
  const T* B_;
  T* C_;
  gemm_tile_engine<T>& engine_;
  bool adaptive_, judged_ = false;
  int threads_;  // staging threads
  host_array a_, b_, c_;
  gemm_tiles_done done_;
  // Destroyed in reverse order: ~tile_schedule has waited for every stream; then the staging buffers go back to
  // the cache, the device buffers are released in order on the H2D stream, the events go, the core (staging
  // threads, pending host copies, streams), and last the pages locked in place are unlocked.
  host_registrations pins_;
  pipeline_core core_;
  handoff loaded_, panel_free_, computed_, stored_, a_loaded_, a_free_;
  std::vector<device_buffer<T>> cbuf_, bbuf_, abuf_;
  staging_set cin_, cout_, bst_, ast_;
};

}  // namespace

template <class T>
gemm_tiles_done run_tiles(const gemm_shape& s, const gemm_tiling& t, gemm_mode mode, std::int64_t gpu_n, T alpha,
                          const T* A, const T* B, T beta, T* C, const gemm_access& access,
                          gemm_tile_engine<T>& engine) {
  tile_schedule<T> schedule(s, t, mode, gpu_n, alpha, A, B, beta, C, access, engine);
  return schedule.run();
}

template gemm_tiles_done run_tiles<float>(const gemm_shape&, const gemm_tiling&, gemm_mode, std::int64_t, float,
                                          const float*, const float*, float, float*, const gemm_access&,
                                          gemm_tile_engine<float>&);
template gemm_tiles_done run_tiles<double>(const gemm_shape&, const gemm_tiling&, gemm_mode, std::int64_t, double,
                                           const double*, const double*, double, double*, const gemm_access&,
                                           gemm_tile_engine<double>&);

}  // namespace cuprim::ooc::detail
