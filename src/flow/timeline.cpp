// The Executive's timeline in Chrome trace-event JSON: one complete event ("ph": "X") per module
// instance and rank, pid 0, tid = the rank; args carry instance, iteration, group and any error.
#include <nlohmann/json.hpp>

#include "exadnn/flow/executive.h"

namespace exadnn::flow {

std::string timeline_json(const std::vector<TimelineEvent>& events) {
  nlohmann::json trace = nlohmann::json::array();
  std::vector<int> ranks;
  for (const auto& e : events) {
    nlohmann::json args{{"instance", e.instance}, {"iteration", e.iteration}, {"group", e.group}};
    if (e.failed) args["error"] = e.error;
    trace.push_back({{"name", e.module},
                     {"cat", e.group},
                     {"ph", "X"},
                     {"ts", e.start_us},
                     {"dur", e.duration_us},
                     {"pid", 0},
                     {"tid", e.rank},
                     {"args", args}});
    if (std::find(ranks.begin(), ranks.end(), e.rank) == ranks.end()) ranks.push_back(e.rank);
  }
  for (int r : ranks)
    trace.push_back({{"name", "thread_name"},
                     {"ph", "M"},
                     {"pid", 0},
                     {"tid", r},
                     {"args", {{"name", "rank " + std::to_string(r)}}}});
  return nlohmann::json{{"traceEvents", trace}, {"displayTimeUnit", "ms"}}.dump(1) + "\n";
}

std::vector<TimelineEvent> parse_timeline_json(const std::string& text) {
  std::vector<TimelineEvent> events;
  try {
    const auto doc = nlohmann::json::parse(text);
    for (const auto& j : doc.at("traceEvents")) {
      if (j.at("ph") != "X") continue;
      TimelineEvent e;
      e.module = j.at("name").get<std::string>();
      e.group = j.at("cat").get<std::string>();
      e.start_us = j.at("ts").get<double>();
      e.duration_us = j.at("dur").get<double>();
      e.rank = j.at("tid").get<int>();
      const auto& args = j.at("args");
      e.instance = args.at("instance").get<int>();
      e.iteration = args.at("iteration").get<int>();
      if (args.contains("error")) {
        e.failed = true;
        e.error = args.at("error").get<std::string>();
      }
      events.push_back(std::move(e));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error("flow timeline",
                std::string("not a timeline written by the Executive: ") + e.what());
  }
  return events;
}

}  // namespace exadnn::flow
