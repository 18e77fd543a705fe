#include "shared_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "mpi_check.h"

namespace exadnn::dist::detail {

namespace {
constexpr size_t kNameLength = 64;

std::string os_error(const char* call, int err) {
  return exadnn::detail::cat(call, ": ", std::strerror(err));
}

// Creates, sizes and reserves the named object; returns its descriptor or -1 (reason in *why).
int create_object(const char* name, size_t bytes, std::string* why) {
  const int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    *why = os_error("shm_open", errno);
    return -1;
  }
  int err = ftruncate(fd, static_cast<off_t>(bytes)) == 0 ? 0 : errno;
  if (err == 0) err = posix_fallocate(fd, 0, static_cast<off_t>(bytes));  // returns the error
  if (err != 0) {
    *why = exadnn::detail::cat(os_error("reserving the pages", err), " (", bytes,
                               " bytes in /dev/shm)");
    close(fd);
    shm_unlink(name);
    return -1;
  }
  return fd;
}
}  // namespace

bool single_node(const CommState& comm) {
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(comm.data, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int node_size = 0;
  const int rc = MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);  // (a failed free leaks one handle; the answer stands)
  mpi_check(rc, "MPI_Comm_size");
  return node_size == comm.size;
}

std::optional<SharedSegment> SharedSegment::create(CommState& comm, size_t bytes,
                                                   std::string* why) {
  // Rank 0 names and creates the object; the name travels with rank 0's success.
  static std::atomic<unsigned> serial{0};
  std::array<char, kNameLength> name{};
  std::string reason;
  int fd = -1;
  if (comm.rank == 0) {
    std::snprintf(name.data(), name.size(), "/exadnn-%d-%u", static_cast<int>(getpid()),
                  serial.fetch_add(1));
    fd = create_object(name.data(), bytes, &reason);
    if (fd < 0) name[0] = '\0';
  }
  mpi_check(MPI_Bcast(name.data(), kNameLength, MPI_CHAR, 0, comm.data), "MPI_Bcast");
  if (comm.rank != 0 && name[0] != '\0') {
    fd = shm_open(name.data(), O_RDWR, 0600);
    if (fd < 0) reason = os_error("shm_open", errno);
  }
  void* map = MAP_FAILED;
  if (fd >= 0) {
    map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) reason = os_error("mmap", errno);
    close(fd);  // the mapping keeps the object alive
  }
  // Every rank learns whether all of them have it; then the name is no longer needed.
  int mapped = map != MAP_FAILED ? 1 : 0;
  int all_mapped = mapped;
  mpi_check(MPI_Allreduce(&mapped, &all_mapped, 1, MPI_INT, MPI_MIN, comm.data), "MPI_Allreduce");
  if (comm.rank == 0 && name[0] != '\0') shm_unlink(name.data());
  if (all_mapped) return SharedSegment(static_cast<std::byte*>(map), bytes);

  if (map != MAP_FAILED) munmap(map, bytes);
  // Say which rank failed and why (the lowest failing rank's reason).
  std::array<char, 256> text{};
  int first_failed = mapped ? comm.size : comm.rank;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm.data),
            "MPI_Allreduce");
  if (comm.rank == first_failed) std::snprintf(text.data(), text.size(), "%s", reason.c_str());
  mpi_check(
      MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, first_failed, comm.data),
      "MPI_Bcast");
  if (why) *why = exadnn::detail::cat("rank ", first_failed, ": ", text.data());
  return std::nullopt;
}

SharedSegment::SharedSegment(SharedSegment&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

SharedSegment::~SharedSegment() {
  if (data_) munmap(data_, size_);
}

}  // namespace exadnn::dist::detail
