// ModuleContext: a module instance's view of the Executive (its communicator, typed arguments,
// channels and tuple space).
#include <charconv>
#include <cstdint>

#include "exadnn/flow/module.h"
#include "flow/rank_services.h"

namespace exadnn::flow {

namespace {
[[noreturn]] void bad_arg(const ModuleContext& ctx, const std::string& key, const ArgValue& v,
                          const char* expected) {
  throw Error("flow", exadnn::detail::cat(v.where.str(), ": ", ctx.describe(), ": argument '", key,
                                          "' = '", v.text, "' is not ", expected));
}

template <class Int>
bool parse_integer(const std::string& text, Int& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}
}  // namespace

ModuleContext::ModuleContext(const ModuleSpec& spec, int instance, int iteration,
                             dist::Communicator comm, Args args,
                             std::shared_ptr<detail::RankServices> services)
    : spec_(&spec),
      instance_(instance),
      iteration_(iteration),
      comm_(std::move(comm)),
      args_(std::move(args)),
      services_(std::move(services)) {}

ModuleContext::~ModuleContext() = default;

int ModuleContext::iterations() const {
  return services_ && services_->file ? services_->file->iterations : 1;
}

std::string ModuleContext::describe() const {
  return exadnn::detail::cat("module '", name(), "' instance ", instance_, " iteration ",
                             iteration_);
}

template <>
std::string ModuleContext::arg<std::string>(const std::string& key) const {
  const auto it = args_.find(key);
  EXADNN_CHECK(it != args_.end(), "flow", describe(), ": argument '", key,
               "' is missing (set it in 'args:' at ", spec_->where.str(), ")");
  return it->second.text;
}

template <>
bool ModuleContext::arg<bool>(const std::string& key) const {
  const std::string text = arg<std::string>(key);
  if (text == "true" || text == "True" || text == "yes" || text == "on") return true;
  if (text == "false" || text == "False" || text == "no" || text == "off") return false;
  bad_arg(*this, key, args_.at(key), "a bool (true or false)");
}

template <>
int64_t ModuleContext::arg<int64_t>(const std::string& key) const {
  int64_t v = 0;
  if (!parse_integer(arg<std::string>(key), v)) bad_arg(*this, key, args_.at(key), "an integer");
  return v;
}

template <>
int ModuleContext::arg<int>(const std::string& key) const {
  int v = 0;
  if (!parse_integer(arg<std::string>(key), v))
    bad_arg(*this, key, args_.at(key), "an integer (32-bit)");
  return v;
}

template <>
double ModuleContext::arg<double>(const std::string& key) const {
  const std::string text = arg<std::string>(key);
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  bad_arg(*this, key, args_.at(key), "a number");
}

template <>
float ModuleContext::arg<float>(const std::string& key) const {
  return static_cast<float>(arg<double>(key));
}

Channel& ModuleContext::channel(const std::string& name) {
  EXADNN_CHECK(services_ && services_->channel_comm, "flow", describe(),
               ": channels need the Executive");
  auto& open = services_->channels;
  if (const auto it = open.find(name); it != open.end()) return *it->second;
  const auto ends = services_->channel_ends.find(name);
  if (ends == services_->channel_ends.end()) {
    std::string mine;
    for (const auto& kv : services_->channel_ends) mine += (mine.empty() ? "" : ", ") + kv.first;
    throw Error("flow", exadnn::detail::cat(describe(), ": no channel '", name,
                                            "' joins this module (its channels: ",
                                            mine.empty() ? "none" : mine, ")"));
  }
  auto channel = std::make_unique<Channel>(*services_->channel_comm, ends->second);
  return *open.emplace(name, std::move(channel)).first->second;
}

TupleSpace& ModuleContext::tuple_space() {
  EXADNN_CHECK(services_ && services_->tuple_space, "flow", describe(),
               ": the control file asks for no tuple space (add 'tuple_space: {servers: 1}')");
  return *services_->tuple_space;
}

}  // namespace exadnn::flow
