// Whether ops record the graph on this thread, and RAII scopes that switch it.
#pragma once

namespace exadnn {

/// Thread-local switch: when disabled, ops do not record graph nodes.
class GradMode {
 public:
  static bool is_enabled() noexcept;
  static void set_enabled(bool enabled) noexcept;
};

/// Disables graph recording for its lifetime (restores the previous mode on exit).
class NoGradGuard {
 public:
  NoGradGuard() : previous_(GradMode::is_enabled()) { GradMode::set_enabled(false); }
  ~NoGradGuard() { GradMode::set_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

/// Enables graph recording for its lifetime.
class EnableGradGuard {
 public:
  EnableGradGuard() : previous_(GradMode::is_enabled()) { GradMode::set_enabled(true); }
  ~EnableGradGuard() { GradMode::set_enabled(previous_); }
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace exadnn
