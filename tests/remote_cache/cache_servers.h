// The real servers of the remote cache tests, as the tests see them: the fixture's server (started
// by tests/cache_servers/start_*.sh before the tests, see tests/cache_servers/CMakeLists.txt),
// private servers a test starts and stops itself, and raw access to what a server stores, to
// damage entries behind the cache's back.
#pragma once

#include "compiler/remote/remote_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tta::testing {

/// One kind of server: redis-server or nginx (WebDAV).
class CacheServer {
public:
  /// \p name: "redis" or "nginx", the name of the start and stop scripts. \p dir holds the
  /// server's state; an \p owned server is stopped by the destructor.
  CacheServer(std::string name, std::filesystem::path dir, bool owned)
      : name_(std::move(name)), dir_(std::move(dir)), owned_(owned) {}
  virtual ~CacheServer();

  const std::string &name() const { return name_; }
  /// The cache URL.
  std::string url() const { return read("url"); }

  /// The bytes stored for a record ("ac") or blob ("cas") \p name, if any.
  virtual std::optional<std::string> getRaw(const std::string &kind, const std::string &name) = 0;
  /// Stores \p bytes as a record ("ac") or blob ("cas") \p name, bypassing the cache.
  virtual void putRaw(const std::string &kind, const std::string &name,
                      const std::string &bytes) = 0;
  virtual void removeRaw(const std::string &kind, const std::string &name) = 0;
  /// The keys of every record the server holds.
  virtual std::vector<std::string> recordKeys() = 0;

  /// The fixture's server (started by CTest), or none: then the test skips.
  static std::unique_ptr<CacheServer> fixture(const std::string &name);
  /// A private server in a fresh directory, started now and stopped with the object. Fails the
  /// test (and returns none) if it does not start.
  static std::unique_ptr<CacheServer> start(const std::string &name);
  /// Stops a private server now (the object keeps its directory).
  void stop();

  /// A line of the server's state file \p file (url, base, password, token, basic_auth).
  std::string read(const std::string &file) const;
  const std::filesystem::path &dir() const { return dir_; }

private:
  std::string name_;
  std::filesystem::path dir_;
  bool owned_ = false;
};

/// A key unique to this test and this process, from \p salt.
std::string uniqueKey(const std::string &salt);
/// An entry whose files are unique to this test and \p salt: an image with NUL bytes, a PTX
/// text of about \p size bytes, and an empty file.
RemoteEntry uniqueEntry(const std::string &salt, std::size_t size = 3000);
/// The SHA-256 of \p entry's file \p role, as the record names it.
std::string blobName(const RemoteEntry &entry, const std::string &role);

/// A local TCP port that accepts connections (in the kernel's backlog) and never answers: a
/// server that hangs. Closed with the object.
class SilentServer {
public:
  SilentServer();
  ~SilentServer();
  int port() const { return port_; }

private:
  int fd_ = -1;
  int port_ = 0;
};

/// A local TCP server that answers every connection with \p head at once, then with one more
/// byte every \p interval, for ever: an answer that never ends, from a server that is never
/// silent for long (a per-read timeout never fires). Stopped, and its thread joined, with the
/// object.
class DripServer {
public:
  DripServer(std::string head, std::chrono::milliseconds interval);
  ~DripServer();
  DripServer(const DripServer &) = delete;
  DripServer &operator=(const DripServer &) = delete;
  int port() const { return port_; }
  /// How many connections it accepted so far.
  int connections() const { return connections_.load(); }

private:
  void serve();

  std::string head_;
  std::chrono::milliseconds interval_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

} // namespace tta::testing
