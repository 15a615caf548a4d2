// nnref devices: the devices of the backends that run on devices (for --backend NAME --device N;
// today vulkan's), as each backend's registration lists them (ops/backend.h, DeviceReport).
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ref/value.h"
#include "runner/backends.h"
#include "runner/commands.h"
#include "runner/json.h"

namespace nnref {

namespace {
Value Count(uint64_t v) {
  Number n;
  n.d = static_cast<double>(v);
  n.u = v;
  n.i = static_cast<int64_t>(v);
  return Value::Num(n);
}

Value FieldValue(const DeviceField& f) {
  if (const bool* b = std::get_if<bool>(&f.value)) return Value::Bool(*b);
  if (const uint64_t* u = std::get_if<uint64_t>(&f.value)) return Count(*u);
  return Value::Str(std::get<std::string>(f.value));
}

std::string FieldText(const DeviceField& f) {
  if (const bool* b = std::get_if<bool>(&f.value)) return *b ? "yes" : "no";
  if (const uint64_t* u = std::get_if<uint64_t>(&f.value)) return std::to_string(*u);
  return std::get<std::string>(f.value);
}
}  // namespace

int CommandDevices(bool json) {
  // The devices of every backend that has them; with more than one such backend each device
  // names its backend too.
  std::vector<const BackendRegistration*> with_devices;
  for (const BackendRegistration* b : RegisteredBackends()) {
    if (b->list_devices != nullptr) with_devices.push_back(b);
  }
  const bool several = with_devices.size() > 1;
  std::vector<Value> rows;
  int listed = 0;
  for (const BackendRegistration* b : with_devices) {
    std::string why;
    const std::optional<std::vector<DeviceReport>> devices = b->list_devices(why);
    if (!devices || devices->empty()) {
      std::cerr << "nnref devices: "
                << (devices ? "no " + std::string(b->device_kind) + " device" : why) << "\n";
      continue;
    }
    for (size_t i = 0; i < devices->size(); ++i) {
      const DeviceReport& d = (*devices)[i];
      ++listed;
      if (json) {
        std::vector<std::pair<std::string, Value>> members;
        if (several) members.emplace_back("backend", Value::Str(std::string(b->name)));
        members.emplace_back("index", Count(i));
        members.emplace_back("name", Value::Str(d.name));
        for (const DeviceField& f : d.fields) members.emplace_back(f.key, FieldValue(f));
        rows.push_back(Value::Object(std::move(members)));
        continue;
      }
      std::cout << (several ? std::string(b->name) + " " : std::string()) << "device " << i << ": "
                << d.name << "\n";
      for (const DeviceField& f : d.fields) {
        std::cout << "  " << f.label << ": " << FieldText(f) << "\n";
      }
    }
  }
  if (listed == 0) return 4;
  if (json) {
    std::cout << WriteJson(Value::Object({{"devices", Value::Array(std::move(rows))}})) << "\n";
  }
  return 0;
}

}  // namespace nnref
