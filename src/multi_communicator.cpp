// The communicator of cuprim::multi (include/cuprim/multi/communicator.hpp): NCCL set-up and tear-down.
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/multi/communicator.hpp>
#include <cuprim/multi/detail/nccl.hpp>

#include <algorithm>
#include <cstring>
#include <utility>

namespace cuprim::multi {

namespace {

std::string nccl_message(ncclResult_t code, const std::string& call, std::source_location where) {
  std::string m = call + " failed: " + ncclGetErrorString(code);
  if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0') m += std::string(" (") + last + ")";
  return m + " at " + where.file_name() + ":" + std::to_string(where.line());
}

void check_devices(const char* fn, const std::vector<int>& devices) {
  const int count = cuprim::device_count();
  if (devices.empty()) throw invalid_argument(fn, "devices", "must name at least one device (none is visible)");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0 || devices[i] >= count)
      throw invalid_argument(fn, "devices", "names device " + std::to_string(devices[i]) + ", but " +
                                                std::to_string(count) + " are visible");
    if (std::count(devices.begin(), devices.end(), devices[i]) > 1)
      throw invalid_argument(fn, "devices", "names device " + std::to_string(devices[i]) + " twice");
  }
}

// Fills in every local rank's stream and resource (the comms are set by the caller).
void make_streams(std::vector<local_rank>& locals, std::vector<bool>& owned) {
  owned.assign(locals.size(), true);
  for (local_rank& l : locals) {
    device_guard g(l.device);
    CUPRIM_CUDA_CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
    l.resource = &current_resource();
  }
}

// One NCCL communicator per local rank, made by make(l, &comm) with l's device current, all in one group: several
// ranks of one process must make theirs together (each blocks until every rank has joined). On a failure the ones
// made so far are aborted, not destroyed (destroying would wait for peers), and the error is rethrown.
template <class Make>
std::vector<ncclComm_t> make_grouped(const std::vector<local_rank>& locals, Make&& make) {
  std::vector<ncclComm_t> made(locals.size(), nullptr);
  const auto abort_made = [&made] {
    for (ncclComm_t& m : made)
      if (m != nullptr) ncclCommAbort(std::exchange(m, nullptr));
  };
  detail::group_start();
  try {
    for (std::size_t i = 0; i < locals.size(); ++i) {
      device_guard g(locals[i].device);
      make(locals[i], &made[i]);
    }
  } catch (...) {
    ncclGroupEnd();
    abort_made();
    throw;
  }
  try {
    detail::group_end();
  } catch (...) {
    abort_made();
    throw;
  }
  return made;
}

}  // namespace

nccl_error::nccl_error(ncclResult_t code, std::string call, std::source_location where)
    : std::runtime_error(nccl_message(code, call, where)), code_(code), call_(std::move(call)) {}

namespace detail {
void nccl_check(ncclResult_t code, const char* call, std::source_location where) {
  if (code != ncclSuccess) throw nccl_error(code, call, where);
}
}  // namespace detail

unique_id unique_id::create() {
  unique_id u;
  CUPRIM_NCCL_CHECK(ncclGetUniqueId(&u.id_));
  return u;
}

unique_id unique_id::from_bytes(std::span<const std::byte> bytes) {
  if (bytes.size() != sizeof(ncclUniqueId))
    throw invalid_argument("cuprim::multi::unique_id::from_bytes", "bytes",
                           "must hold NCCL_UNIQUE_ID_BYTES (" + std::to_string(sizeof(ncclUniqueId)) +
                               ") bytes, as unique_id::bytes() gave them");
  unique_id u;
  std::memcpy(&u.id_, bytes.data(), bytes.size());
  return u;
}

device_guard::device_guard(int device) {
  CUPRIM_CUDA_CHECK(cudaGetDevice(&previous_));
  if (device != previous_) CUPRIM_CUDA_CHECK(cudaSetDevice(device));
}

device_guard::~device_guard() { cudaSetDevice(previous_); }

communicator communicator::local(std::vector<int> devices) {
  const char* fn = "cuprim::multi::communicator::local";
  if (devices.empty())
    for (int d = 0; d < cuprim::device_count(); ++d) devices.push_back(d);
  check_devices(fn, devices);
  communicator c;
  c.size_ = int(devices.size());
  c.locals_.resize(devices.size());
  std::vector<ncclComm_t> comms(devices.size());
  CUPRIM_NCCL_CHECK(ncclCommInitAll(comms.data(), int(devices.size()), devices.data()));
  for (std::size_t i = 0; i < devices.size(); ++i) c.locals_[i] = {int(i), devices[i], comms[i], nullptr, nullptr};
  make_streams(c.locals_, c.owns_stream_);
  return c;
}

communicator communicator::join(const unique_id& id, int nranks, int rank, int device) {
  return join(id, nranks, rank, std::vector<int>{device});
}

communicator communicator::join(const unique_id& id, int nranks, int first_rank, std::vector<int> devices) {
  const char* fn = "cuprim::multi::communicator::join";
  check_devices(fn, devices);
  if (nranks < 1) throw invalid_argument(fn, "nranks", "must be at least 1");
  if (first_rank < 0 || first_rank + int(devices.size()) > nranks)
    throw invalid_argument(fn, "rank", "must leave this process's ranks within [0, nranks)");
  communicator c;
  c.size_ = nranks;
  c.locals_.resize(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) c.locals_[i] = {first_rank + int(i), devices[i], nullptr, nullptr, nullptr};
  std::vector<ncclComm_t> comms = make_grouped(c.locals_, [&](const local_rank& l, ncclComm_t* out) {
    CUPRIM_NCCL_CHECK(ncclCommInitRank(out, nranks, id.get(), l.rank));
  });
  for (std::size_t i = 0; i < comms.size(); ++i) c.locals_[i].comm = comms[i];
  make_streams(c.locals_, c.owns_stream_);
  return c;
}

communicator communicator::adopt(ncclComm_t comm, int device, cudaStream_t stream) {
  const char* fn = "cuprim::multi::communicator::adopt";
  if (comm == nullptr) throw invalid_argument(fn, "comm", "must not be null");
  check_devices(fn, {device});
  communicator c;
  c.owns_comms_ = false;
  local_rank l;
  l.device = device;
  l.comm = comm;
  CUPRIM_NCCL_CHECK(ncclCommCount(comm, &c.size_));
  CUPRIM_NCCL_CHECK(ncclCommUserRank(comm, &l.rank));
  int comm_device = -1;
  CUPRIM_NCCL_CHECK(ncclCommCuDevice(comm, &comm_device));
  if (comm_device != device)
    throw invalid_argument(fn, "device", "must be the communicator's device (" + std::to_string(comm_device) + ")");
  c.locals_.push_back(l);
  if (stream == nullptr) {
    make_streams(c.locals_, c.owns_stream_);
  } else {
    device_guard g(device);
    c.locals_[0].stream = stream;
    c.locals_[0].resource = &current_resource();
    c.owns_stream_.assign(1, false);
  }
  return c;
}

communicator::communicator(communicator&& other) noexcept
    : size_(std::exchange(other.size_, 0)),
      locals_(std::exchange(other.locals_, {})),
      owns_comms_(other.owns_comms_),
      owns_stream_(std::exchange(other.owns_stream_, {})),
      side_(std::exchange(other.side_, {})),
      side_ctas_(std::exchange(other.side_ctas_, 0)) {}

communicator& communicator::operator=(communicator&& other) noexcept {
  if (this != &other) {
    release();
    size_ = std::exchange(other.size_, 0);
    locals_ = std::exchange(other.locals_, {});
    owns_comms_ = other.owns_comms_;
    owns_stream_ = std::exchange(other.owns_stream_, {});
    side_ = std::exchange(other.side_, {});
    side_ctas_ = std::exchange(other.side_ctas_, 0);
  }
  return *this;
}

communicator::~communicator() { release(); }

std::vector<ncclComm_t> communicator::side_comms(int ctas) const {
  const char* fn = "cuprim::multi::communicator::side_comms";
  if (ctas < 1) throw invalid_argument(fn, "ctas", "must be at least 1");
  if (!side_.empty() && side_ctas_ == ctas) return side_;
  // The old ones' work (queued on the ranks' streams, never waited for by the operations) ends before they go, and
  // the split waits for the ranks' queued NCCL work.
  synchronize();
  release_side();
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.maxCTAs = ctas;
  config.minCTAs = 1;
  std::vector<ncclComm_t> made = make_grouped(locals_, [&](const local_rank& l, ncclComm_t* out) {
    CUPRIM_NCCL_CHECK(ncclCommSplit(l.comm, 0, l.rank, out, &config));
  });
  side_ = std::move(made);
  side_ctas_ = ctas;
  return side_;
}

void communicator::release_side() const noexcept {
  for (std::size_t i = 0; i < side_.size(); ++i) {
    if (side_[i] == nullptr) continue;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(locals_[i].device);
    ncclCommDestroy(side_[i]);
    cudaSetDevice(previous);
  }
  side_.clear();
  side_ctas_ = 0;
}

void communicator::release() noexcept {
  for (const local_rank& l : locals_)  // the side communicators' work is on the ranks' streams: wait for it first
    if (l.stream != nullptr) {
      int previous = 0;
      cudaGetDevice(&previous);
      cudaSetDevice(l.device);
      cudaStreamSynchronize(l.stream);
      cudaSetDevice(previous);
    }
  release_side();
  for (std::size_t i = 0; i < locals_.size(); ++i) {
    local_rank& l = locals_[i];
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(l.device);
    if (l.stream != nullptr) {
      cudaStreamSynchronize(l.stream);
      if (owns_stream_[i]) cudaStreamDestroy(l.stream);
    }
    if (owns_comms_ && l.comm != nullptr) ncclCommDestroy(l.comm);
    cudaSetDevice(previous);
  }
  locals_.clear();
}

void communicator::synchronize() const {
  for (const local_rank& l : locals_) {
    device_guard g(l.device);
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(l.stream));
  }
}

}  // namespace cuprim::multi
