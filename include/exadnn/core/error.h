// exadnn::Error — the one exception type of the library, with the op (or component) that raised it.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace exadnn {

/// An error raised by exadnn: `where()` names the op or component, `what()` the whole message.
class Error : public std::runtime_error {
 public:
  Error(std::string where, const std::string& message)
      : std::runtime_error("exadnn: " + where + ": " + message), where_(std::move(where)) {}
  /// The op or component that raised the error ("add", "MemoryManager", ...).
  const std::string& where() const noexcept { return where_; }

 private:
  std::string where_;
};

namespace detail {
/// Concatenates anything streamable into one string; used to build error messages.
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace exadnn

/// Throws exadnn::Error(where, message...) unless `cond` holds.
#define EXADNN_CHECK(cond, where, ...)                                               \
  do {                                                                               \
    if (!(cond)) throw ::exadnn::Error((where), ::exadnn::detail::cat(__VA_ARGS__)); \
  } while (0)
