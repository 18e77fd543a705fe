#include "exadnn/core/storage.h"

namespace exadnn {

Storage::Storage(void* data, size_t nbytes, Device device, MemoryKind kind, bool owned,
                 std::function<void(void*)> on_release)
    : data_(data),
      nbytes_(nbytes),
      device_(device),
      kind_(kind),
      owned_(owned),
      on_release_(std::move(on_release)) {}

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, Device device, MemoryKind kind) {
  void* p = MemoryManager::instance().allocate(kind, nbytes, device.index);
  return std::make_shared<Storage>(p, nbytes, device, kind, true, nullptr);
}

std::shared_ptr<Storage> Storage::borrow(void* data, size_t nbytes, Device device, MemoryKind kind,
                                         std::function<void(void*)> on_release) {
  return std::make_shared<Storage>(data, nbytes, device, kind, false, std::move(on_release));
}

Storage::~Storage() {
  if (owned_) {
    MemoryManager::instance().deallocate(kind_, data_, nbytes_, device_.index);
  } else if (on_release_) {
    on_release_(data_);
  }
}

}  // namespace exadnn
