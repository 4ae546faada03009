// cuprim/multi/communicator.hpp: the ranks of a multi-GPU computation, over NCCL.
//
//   auto comm = cuprim::multi::communicator::local();            one process drives every visible GPU
//   auto comm = cuprim::multi::communicator::local({0, 2});      ... or these GPUs (rank i = devices[i])
//
//   // One process per GPU (or per node), on one machine or many: rank 0 makes an id and sends its bytes to the
//   // others however the application talks (MPI_Bcast, torch.distributed, a file, a socket).
//   cuprim::multi::unique_id id = rank == 0 ? cuprim::multi::unique_id::create() : received_id;
//   auto comm = cuprim::multi::communicator::join(id, nranks, rank, device);
//   auto comm = cuprim::multi::communicator::join(id, nranks, first_rank, {0, 1, 2, 3});  one process per node
//
//   auto comm = cuprim::multi::communicator::adopt(nccl_comm, device, stream);  an application's own NCCL comm
//
// A communicator owns, for every GPU this process drives (a "local rank"): the NCCL communicator, one non-blocking
// stream, and a memory resource (the device's current_resource() when the communicator was made), which
// sharded_buffer and the operations' own buffers (gathered partials, receive buffers) come from; the single-GPU calls
// inside an operation take their workspace from the device's current_resource() at the time of the call. Every
// cuprim::multi operation is ordered on those streams; none waits on the host unless its documentation says so (the
// scans and the radix sort wait once per call). synchronize() waits for them all. Destroy every sharded_buffer
// before its communicator: its memory is released on the communicator's streams.
//
// Where one process drives several GPUs, cuprim issues their NCCL calls inside one ncclGroupStart/End, as NCCL
// requires. The same program runs unchanged with one GPU per process: every operation takes the local ranks' shards
// (cuprim/multi/sharded.hpp), one per GPU this process drives.
//
// From PyTorch distributed or MPI: create the id on rank 0, broadcast unique_id::bytes() (NCCL_UNIQUE_ID_BYTES =
// 128 bytes) with torch.distributed.broadcast_object_list / MPI_Bcast, rebuild it on every rank with
// unique_id::from_bytes, and call join(id, world_size, rank, local_device). docs/multi.md shows both.
//
// NVLink multicast (NVLS) is neither needed nor used; cuprim's tests and lab run with NCCL_NVLS_ENABLE=0.
#pragma once

#include <cuprim/core/memory.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <initializer_list>
#include <source_location>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuprim::multi {

/// An NCCL call failed: the call, NCCL's result and its last error message.
class nccl_error : public std::runtime_error {
public:
  nccl_error(ncclResult_t code, std::string call, std::source_location where);
  ncclResult_t code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }

private:
  ncclResult_t code_;
  std::string call_;
};

/// The id that ranks in separate processes meet by: made once (on one rank), copied to every other process.
class unique_id {
public:
  /// A fresh id (ncclGetUniqueId; it opens the bootstrap listener in this process, so make it on a rank).
  static unique_id create();
  /// The id whose bytes() another process sent. Throws invalid_argument unless bytes.size() == NCCL_UNIQUE_ID_BYTES.
  static unique_id from_bytes(std::span<const std::byte> bytes);
  /// The bytes to send to the other processes.
  std::span<const std::byte> bytes() const noexcept {
    return {reinterpret_cast<const std::byte*>(&id_), sizeof(id_)};
  }
  const ncclUniqueId& get() const noexcept { return id_; }

private:
  ncclUniqueId id_{};
};

/// One GPU this process drives.
struct local_rank {
  int rank = 0;                        ///< its rank among all ranks
  int device = 0;                      ///< its CUDA device ordinal in this process
  ncclComm_t comm = nullptr;           ///< its NCCL communicator
  cudaStream_t stream = nullptr;       ///< the stream every cuprim::multi operation orders its work on
  memory_resource* resource = nullptr; ///< where cuprim takes its workspace on this device
};

class communicator {
public:
  /// One process drives `devices` (default: every visible device), rank i on devices[i] (ncclCommInitAll).
  /// Throws invalid_argument for an empty list (no device visible), an ordinal out of range or a repeated device.
  static communicator local(std::vector<int> devices = {});
  /// This process is rank `rank` of `nranks`, on `device`; every rank calls join with the same id and nranks.
  static communicator join(const unique_id& id, int nranks, int rank, int device);
  /// This process drives ranks first_rank ... first_rank + devices.size() - 1 of `nranks` (one process per node).
  static communicator join(const unique_id& id, int nranks, int first_rank, std::vector<int> devices);
  /// Wraps an NCCL communicator the application made (not destroyed by cuprim). Work is ordered on `stream` (the
  /// default: a stream cuprim creates and owns). The communicator must be a blocking one (NCCL's default: not made
  /// with ncclConfig_t::blocking = 0), since cuprim checks every NCCL call's result as it returns.
  static communicator adopt(ncclComm_t comm, int device, cudaStream_t stream = nullptr);

  communicator(communicator&& other) noexcept;
  communicator& operator=(communicator&& other) noexcept;
  communicator(const communicator&) = delete;
  communicator& operator=(const communicator&) = delete;
  ~communicator();

  /// The number of ranks, in every process.
  int size() const noexcept { return size_; }
  /// The number of GPUs this process drives.
  int local_size() const noexcept { return int(locals_.size()); }
  /// Local rank i (0 ≤ i < local_size()).
  const local_rank& operator[](int i) const { return locals_.at(std::size_t(i)); }
  std::span<const local_rank> locals() const noexcept { return locals_; }
  /// Whether this process drives every rank (then results of all ranks can be read here).
  bool single_process() const noexcept { return local_size() == size(); }

  /// Waits on the host for all work on the local ranks' streams.
  void synchronize() const;

  /// Second NCCL communicators of the same ranks (one per local rank), for transfers that run beside a kernel
  /// holding most SMs (multi::gemm's): split from the ranks' own (ncclCommSplit), their kernels take at most `ctas`
  /// CTAs. Made by the first call, on every rank at the same point (a collective: every rank must make the same
  /// calls), and kept until the communicator is destroyed; a later call with another `ctas` makes them again.
  std::vector<ncclComm_t> side_comms(int ctas) const;

private:
  communicator() = default;
  void release() noexcept;

  void release_side() const noexcept;

  int size_ = 0;
  std::vector<local_rank> locals_;
  bool owns_comms_ = true;
  std::vector<bool> owns_stream_;
  mutable std::vector<ncclComm_t> side_;  // side_comms(): always cuprim's own
  mutable int side_ctas_ = 0;
};

/// Makes `device` current for its lifetime, then restores the caller's device.
class device_guard {
public:
  explicit device_guard(int device);
  ~device_guard();
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

private:
  int previous_ = 0;
};

}  // namespace cuprim::multi
