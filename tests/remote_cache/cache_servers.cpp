#include "cache_servers.h"

#include "compiler/remote/remote_entry.h"

#include <hiredis/hiredis.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace tta::testing {
namespace {

std::string testName() {
  const ::testing::TestInfo *test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = test ? std::string(test->test_suite_name()) + '.' + test->name() : "none";
  for (char &c : name)
    if (c == '/')
      c = '_';
  return name;
}

int runScript(const std::string &script, const fs::path &dir) {
  std::string command = "bash '" + std::string(TTA_CACHE_SERVERS_SCRIPTS) + '/' + script +
                        "' '" + dir.string() + "' >>'" + (dir.string() + ".log") + "' 2>&1";
  return std::system(command.c_str());
}

/// redis-server: the records and blobs are keys of database 1 (the fixture's URL selects it).
class RedisServer final : public CacheServer {
public:
  using CacheServer::CacheServer;

  std::optional<std::string> getRaw(const std::string &kind, const std::string &name) override {
    redisReply *reply = command({"GET", keyOf(kind, name)});
    std::optional<std::string> bytes;
    if (reply && reply->type == REDIS_REPLY_STRING)
      bytes = std::string(reply->str, reply->len);
    freeReplyObject(reply);
    return bytes;
  }
  void putRaw(const std::string &kind, const std::string &name,
              const std::string &bytes) override {
    freeReplyObject(command({"SET", keyOf(kind, name), bytes}));
  }
  void removeRaw(const std::string &kind, const std::string &name) override {
    freeReplyObject(command({"DEL", keyOf(kind, name)}));
  }
  std::vector<std::string> recordKeys() override {
    redisReply *reply = command({"KEYS", keyOf("ac", "*")});
    std::vector<std::string> keys;
    if (reply && reply->type == REDIS_REPLY_ARRAY)
      for (std::size_t i = 0; i < reply->elements; ++i)
        keys.push_back(std::string(reply->element[i]->str, reply->element[i]->len)
                           .substr(keyOf("ac", "").size()));
    freeReplyObject(reply);
    return keys;
  }

  /// Runs \p args on a new connection to database 1; the reply is the caller's.
  redisReply *command(const std::vector<std::string> &args) {
    redisContext *context = redisConnect("127.0.0.1", std::stoi(read("port")));
    EXPECT_TRUE(context && !context->err) << "cannot connect to the test's redis-server";
    redisReply *reply = nullptr;
    if (context && !context->err) {
      freeReplyObject(redisCommand(context, "AUTH %s", read("password").c_str()));
      freeReplyObject(redisCommand(context, "SELECT 1"));
      std::vector<const char *> argv;
      std::vector<std::size_t> lengths;
      for (const std::string &arg : args) {
        argv.push_back(arg.data());
        lengths.push_back(arg.size());
      }
      reply = static_cast<redisReply *>(
          redisCommandArgv(context, static_cast<int>(args.size()), argv.data(), lengths.data()));
    }
    redisFree(context);
    return reply;
  }

  static std::string keyOf(const std::string &kind, const std::string &name) {
    return "triton-aot:v1:" + kind + ':' + name;
  }
};

/// nginx with WebDAV: the records and blobs are files under www/cache/.
class NginxServer final : public CacheServer {
public:
  using CacheServer::CacheServer;

  std::optional<std::string> getRaw(const std::string &kind, const std::string &name) override {
    std::ifstream in(pathOf(kind, name), std::ios::binary);
    if (!in)
      return std::nullopt;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }
  void putRaw(const std::string &kind, const std::string &name,
              const std::string &bytes) override {
    fs::create_directories(pathOf(kind, name).parent_path());
    std::ofstream(pathOf(kind, name), std::ios::binary | std::ios::trunc) << bytes;
  }
  void removeRaw(const std::string &kind, const std::string &name) override {
    fs::remove(pathOf(kind, name));
  }
  std::vector<std::string> recordKeys() override {
    std::vector<std::string> keys;
    std::error_code ec;
    for (const auto &file : fs::directory_iterator(pathOf("ac", ""), ec))
      keys.push_back(file.path().filename().string());
    return keys;
  }

  fs::path pathOf(const std::string &kind, const std::string &name) const {
    return dir() / "www/cache" / kind / name;
  }
};

std::unique_ptr<CacheServer> make(const std::string &name, fs::path dir, bool owned) {
  if (name == "redis")
    return std::make_unique<RedisServer>(name, std::move(dir), owned);
  return std::make_unique<NginxServer>(name, std::move(dir), owned);
}

} // namespace

CacheServer::~CacheServer() {
  if (owned_)
    stop();
}

std::string CacheServer::read(const std::string &file) const {
  std::ifstream in(dir_ / file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::unique_ptr<CacheServer> CacheServer::fixture(const std::string &name) {
  fs::path dir = fs::path(TTA_CACHE_SERVERS_DIR) / name;
  if (!fs::exists(dir / "url"))
    return nullptr;
  return make(name, dir, /*owned=*/false);
}

std::unique_ptr<CacheServer> CacheServer::start(const std::string &name) {
  const char *base = std::getenv("TTA_TEST_TMPDIR");
  fs::path dir = (base ? fs::path(base) : fs::temp_directory_path()) /
                 (testName() + '.' + name + '.' + std::to_string(::getpid()));
  fs::create_directories(dir.parent_path());
  int status = runScript("start_" + name + ".sh", dir);
  if (status != 0) {
    ADD_FAILURE() << "start_" << name << ".sh " << dir << " failed (" << status
                  << "); see " << dir.string() << ".log";
    return nullptr;
  }
  return make(name, dir, /*owned=*/true);
}

void CacheServer::stop() { runScript("stop_" + name_ + ".sh", dir_); }

std::string uniqueKey(const std::string &salt) {
  static const auto started = std::chrono::steady_clock::now().time_since_epoch().count();
  return remote::sha256Hex(testName() + '\n' + salt + '\n' + std::to_string(::getpid()) + '\n' +
                           std::to_string(started));
}

RemoteEntry uniqueEntry(const std::string &salt, std::size_t size) {
  std::string unique = uniqueKey(salt);
  RemoteEntry entry;
  entry.result = {{"ok", true}, {"name", "add_kernel"}, {"shared", 1024}, {"salt", salt}};
  std::string image("\x7f" "ELF\0\1\2\0", 8);
  image += unique;
  entry.files["image"] = image;
  std::string ptx = "// " + unique + '\n';
  while (ptx.size() < size)
    ptx += ".version 8.4\n.target sm_90a\n";
  entry.files["ptx"] = ptx;
  entry.files["empty"] = "";
  return entry;
}

std::string blobName(const RemoteEntry &entry, const std::string &role) {
  return remote::sha256Hex(entry.files.at(role));
}

SilentServer::SilentServer() {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr *>(&address), length) != 0 ||
      ::listen(fd_, 64) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr *>(&address), &length) != 0)
    ADD_FAILURE() << "cannot listen on a local port";
  port_ = ntohs(address.sin_port);
}

SilentServer::~SilentServer() {
  if (fd_ >= 0)
    ::close(fd_);
}

DripServer::DripServer(std::string head, std::chrono::milliseconds interval)
    : head_(std::move(head)), interval_(interval) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr *>(&address), length) != 0 ||
      ::listen(fd_, 64) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr *>(&address), &length) != 0) {
    ADD_FAILURE() << "cannot listen on a local port";
    return;
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

DripServer::~DripServer() {
  stop_ = true;
  if (thread_.joinable())
    thread_.join();
  if (fd_ >= 0)
    ::close(fd_);
}

void DripServer::serve() {
  std::vector<int> clients;
  char discard[4096];
  while (!stop_) {
    pollfd listening{fd_, POLLIN, 0};
    if (::poll(&listening, 1, static_cast<int>(interval_.count())) > 0) {
      int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (client >= 0) {
        ++connections_;
        clients.push_back(client);
        ::send(client, head_.data(), head_.size(), MSG_NOSIGNAL);
      }
    }
    for (int client : clients) {
      while (::recv(client, discard, sizeof discard, 0) > 0) {   // whatever was asked
      }
      ::send(client, "a", 1, MSG_NOSIGNAL);
    }
  }
  for (int client : clients)
    ::close(client);
}

} // namespace tta::testing
