// Storage: one refcounted block of memory that tensor views share.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "exadnn/core/device.h"
#include "exadnn/core/memory_manager.h"

namespace exadnn {

/// A block of memory owned through the MemoryManager, or borrowed from the caller (from_blob).
class Storage {
 public:
  /// Allocates nbytes through the MemoryManager.
  static std::shared_ptr<Storage> allocate(size_t nbytes, Device device, MemoryKind kind);
  /// Wraps memory the caller owns; `on_release` (may be empty) runs when the last view dies.
  static std::shared_ptr<Storage> borrow(void* data, size_t nbytes, Device device, MemoryKind kind,
                                         std::function<void(void*)> on_release);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const noexcept { return data_; }
  size_t nbytes() const noexcept { return nbytes_; }
  Device device() const noexcept { return device_; }
  MemoryKind kind() const noexcept { return kind_; }
  /// True when the memory came from the MemoryManager (false for from_blob).
  bool owned() const noexcept { return owned_; }

  Storage(void* data, size_t nbytes, Device device, MemoryKind kind, bool owned,
          std::function<void(void*)> on_release);

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  MemoryKind kind_;
  bool owned_;
  std::function<void(void*)> on_release_;
};

}  // namespace exadnn
