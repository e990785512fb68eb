#include "contract/index_file.h"

#include "contract/field_reader.h"

namespace tta {

using nlohmann::json;

json toJson(const IndexFile &index) {
  json out = {{"schema", kIndexSchema},
              {"schema_version", index.schemaVersion},
              {"metadata", index.metadata}};
  if (const std::optional<VariantsFrom> &from = index.variantsFrom)
    out["variants_from"] = {{"compiled", from->compiled},
                            {"local", from->local},
                            {"remote", from->remote},
                            {"remote_cache", from->remoteCache}};
  return out;
}

namespace {

using namespace fields;

IndexFile readIndex(const json &root) {
  if (!root.is_object())
    fail("", "expected a JSON object at the top level, got " + show(root));
  ObjectReader top(root, "");
  if (top.get("schema") != kIndexSchema)
    fail("schema", std::string("expected \"") + kIndexSchema + "\", got " + show(top.get("schema")));
  IndexFile index;
  index.schemaVersion = top.integer("schema_version", 1);
  if (index.schemaVersion > kIndexSchemaVersion)
    fail("", "schema_version " + std::to_string(index.schemaVersion) +
                 " is newer than this tool supports (" + std::to_string(kIndexSchemaVersion) +
                 "); update triton-aot");
  const json &listed = top.array("metadata");
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const std::string at = indexPath("metadata", i);
    std::string name = readText(listed[i], at, /*allowEmpty=*/false);
    // What triton-aot-cc lists: its .json outputs. Anything else (a device, a directory) is
    // not read at all.
    if (name.size() < 6 || name.compare(name.size() - 5, 5, ".json") != 0 || name.back() == '/')
      fail(at, show(listed[i]) + " is not a metadata file name (<...>.json)");
    index.metadata.push_back(std::move(name));
  }
  if (top.find("variants_from")) {
    ObjectReader from = top.object("variants_from");
    VariantsFrom counts;
    counts.compiled = from.uint64("compiled");
    counts.local = from.uint64("local");
    counts.remote = from.uint64("remote");
    counts.remoteCache = from.boolean("remote_cache");
    index.variantsFrom = counts;
  }
  return index;
}

} // namespace

Expected<IndexFile> parseIndex(const json &root) {
  return readFields("", [&] { return readIndex(root); });
}

} // namespace tta
