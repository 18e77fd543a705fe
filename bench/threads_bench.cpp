// Does exadnn keep to the thread count it is given? Runs, for a couple of seconds, a loop that
// interleaves f32 matmul (oneDNN or BLAS), f64 matmul (BLAS: OpenBLAS's own thread pool), and
// large elementwise ops (exadnn's OpenMP loops), then reports:
//   - process CPU time / wall time over the loop (should stay <= the thread count: with N threads
//     at most N cores can be busy, whichever pool they belong to),
//   - the peak number of OS threads (/proc/self/status "Threads:") and each thread's CPU time
//     (a pool that busy-waits while another pool works shows up as CPU time beyond the wall time
//     of the ops it serves),
//   - each op's median time alone and inside the interleaved loop (the same busy-waiting shows up
//     as a slowdown of the interleaved times). Alone and interleaved blocks alternate, so a
//     changing load from other processes falls on both alike.
//
//   exadnn_threads_bench [THREADS=2] [SECONDS=2]
//
// It prints; it does not judge (benchmarks never assert speed).
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "exadnn/exadnn.h"

namespace {

double now_s(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int os_threads() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8);
  return -1;
}

struct ThreadCpu {
  std::string name;
  double cpu_s = 0;
};

// CPU seconds (user + system) of every thread of this process, by thread id.
std::map<int, ThreadCpu> thread_cpu() {
  std::map<int, ThreadCpu> out;
  const double tick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return out;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const int tid = std::atoi(e->d_name);
    std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    ThreadCpu t;
    t.name = stat.substr(open + 1, close - open - 1);
    // Fields after ")": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
    // cmajflt utime(14) stime(15).
    std::vector<std::string> fields;
    size_t pos = close + 2;
    while (pos < stat.size() && fields.size() < 13) {
      const size_t sp = stat.find(' ', pos);
      fields.push_back(stat.substr(pos, sp - pos));
      if (sp == std::string::npos) break;
      pos = sp + 1;
    }
    if (fields.size() >= 13)
      t.cpu_s = (std::atof(fields[11].c_str()) + std::atof(fields[12].c_str())) * tick;
    out[tid] = t;
  }
  closedir(dir);
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Op {
  const char* name;
  std::function<void()> run;
  std::vector<double> alone, interleaved;  // seconds per call
};

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 2.0;
  const int threads_at_start = os_threads();
  std::vector<int> pre_main;  // threads that exist before exadnn runs anything
  for (const auto& [tid, t] : thread_cpu()) pre_main.push_back(tid);  // (sorted: std::map)
  exadnn::set_num_threads(threads);

  exadnn::Generator gen(42);
  const exadnn::Tensor a32 = exadnn::randn({512, 512}, {}, &gen);
  const exadnn::Tensor b32 = exadnn::randn({512, 512}, {}, &gen);
  const exadnn::Tensor a64 = a32.to(exadnn::DType::f64), b64 = b32.to(exadnn::DType::f64);
  const int64_t big = int64_t{8} << 20;  // 8M floats = 32 MiB per tensor
  const exadnn::Tensor x = exadnn::randn({big}, {}, &gen), y = exadnn::randn({big}, {}, &gen);

  std::vector<Op> ops = {
      {"matmul f32 512^3", [&] { exadnn::matmul(a32, b32); }, {}, {}},
      {"add f32 8M", [&] { exadnn::add(x, y); }, {}, {}},
      {"matmul f64 512^3", [&] { exadnn::matmul(a64, b64); }, {}, {}},
      {"exp f32 8M", [&] { exadnn::exp(x); }, {}, {}},
  };

  int peak = os_threads();
  auto timed = [&](Op& op, std::vector<double>& into) {
    const double t0 = now_s(CLOCK_MONOTONIC);
    op.run();
    into.push_back(now_s(CLOCK_MONOTONIC) - t0);
    peak = std::max(peak, os_threads());
  };
  for (Op& op : ops) op.run();  // warm up every pool and JIT kernel, and the allocator's cache

  // Alternating blocks: each op alone (back to back), then the interleaved loop, so that the load
  // of other processes on a shared machine falls on both alike. CPU time counts the interleaved
  // blocks only.
  constexpr int kBlocks = 4;
  std::map<int, double> thread_busy;  // CPU seconds per thread id in the interleaved blocks
  std::map<int, std::string> thread_name;
  double wall = 0, cpu = 0;
  int rounds = 0;
  for (int block = 0; block < kBlocks; ++block) {
    for (Op& op : ops) {
      const double end = now_s(CLOCK_MONOTONIC) + seconds / (8 * kBlocks);
      do timed(op, op.alone);
      while (now_s(CLOCK_MONOTONIC) < end);
    }
    const std::map<int, ThreadCpu> before = thread_cpu();
    const double wall0 = now_s(CLOCK_MONOTONIC), cpu0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    do {
      for (Op& op : ops) timed(op, op.interleaved);
      ++rounds;
    } while (now_s(CLOCK_MONOTONIC) - wall0 < seconds / kBlocks);
    wall += now_s(CLOCK_MONOTONIC) - wall0;
    cpu += now_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    for (const auto& [tid, t] : thread_cpu()) {
      const auto it = before.find(tid);
      thread_busy[tid] += t.cpu_s - (it == before.end() ? 0.0 : it->second.cpu_s);
      thread_name[tid] = t.name;
    }
  }

  std::printf("%s", exadnn::runtime_info().c_str());
  std::printf("\nset_num_threads(%d); get_num_threads() = %d; cores online = %ld\n", threads,
              exadnn::get_num_threads(), sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("interleaved loop: %d rounds of %zu ops in %.2f s wall (%d blocks)\n", rounds,
              ops.size(), wall, kBlocks);
  std::printf("process CPU time / wall time = %.2f / %.2f = %.2f (at most %d expected)\n", cpu,
              wall, cpu / wall, threads);
  std::printf("OS threads: %d before set_num_threads, peak %d, now %d\n", threads_at_start, peak,
              os_threads());
  std::printf("\nCPU seconds per OS thread in the interleaved loop:\n");
  const int main_tid = static_cast<int>(gettid());
  for (const auto& [tid, busy] : thread_busy) {
    const char* origin = tid == main_tid ? "main thread"
                         : std::binary_search(pre_main.begin(), pre_main.end(), tid)
                             ? "started before main (a library's own pool: OpenBLAS)"
                             : "started in main (OpenMP pool)";
    std::printf("  tid %-8d %-16s %6.2f s (%3.0f%% of wall)  %s\n", tid, thread_name[tid].c_str(),
                busy, 100 * busy / wall, origin);
  }
  std::printf("\n%-18s %12s %16s %10s %18s\n", "op", "alone (ms)", "interleaved (ms)", "ratio",
              "wall in loop (s)");
  for (const Op& op : ops) {
    const double alone = median(op.alone), mixed = median(op.interleaved);
    double total = 0;
    for (double t : op.interleaved) total += t;
    std::printf("%-18s %12.3f %16.3f %10.2f %18.2f\n", op.name, 1e3 * alone, 1e3 * mixed,
                mixed / alone, total);
  }
  return 0;
}
