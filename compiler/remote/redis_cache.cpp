// The Redis backend (hiredis): blobs at triton-aot:v1:cas:<sha256>, records at
// triton-aot:v1:ac:<key>, written with SET (EX when the settings ask for an expiry) and read
// with GETRANGE, which bounds what a damaged or hostile server can make us read.
#include "compiler/remote/blob_store.h"

#include <hiredis/hiredis.h>

#include <cerrno>
#include <string_view>

namespace tta::remote {
namespace {

constexpr std::string_view kRecordPrefix = "triton-aot:v1:ac:";
constexpr std::string_view kBlobPrefix = "triton-aot:v1:cas:";

struct ContextDeleter {
  void operator()(redisContext *context) const { redisFree(context); }
};
using Context = std::unique_ptr<redisContext, ContextDeleter>;
struct ReplyDeleter {
  void operator()(redisReply *reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

/// One command's arguments; they point into strings the caller keeps alive.
using Command = std::vector<std::string_view>;

/// An error reply's text, without the final period Redis ends some with.
std::string errorText(const redisReply &reply) {
  std::string text(reply.str, reply.len);
  while (!text.empty() && (text.back() == '.' || text.back() == ' '))
    text.pop_back();
  return text;
}

/// Why a reply is an error, and the fix when there is a usual one.
Transfer replyError(const redisReply &reply, std::string_view command) {
  std::string text = errorText(reply);
  std::string what = std::string(command) + " failed: " + text;
  if (text.rfind("NOAUTH", 0) == 0)
    return Transfer::refused(what + ": put the password in the URL, "
                                    "redis://[user]:password@host:port");
  if (text.rfind("OOM", 0) == 0)
    return Transfer::refused(what + ": the server is full; raise its maxmemory or give it an "
                                    "eviction policy (maxmemory-policy allkeys-lru)");
  if (text.rfind("READONLY", 0) == 0)
    return Transfer::refused(what + ": the URL names a read-only replica; use the primary");
  return Transfer::refused(what);
}

class RedisCache final : public BlobStoreCache {
public:
  RedisCache(const RemoteCacheSettings &settings, RemoteUrl url)
      : BlobStoreCache(settings, redactUrl(settings.url)), url_(std::move(url)) {}

protected:
  Transfer getRecord(const std::string &key, std::uint64_t limit) override {
    std::string name = std::string(kRecordPrefix) + key;
    std::string end = std::to_string(limit);
    std::vector<Reply> replies;
    if (Transfer failed = run({{"GETRANGE", name, "0", end}}, replies);
        failed.kind != Transfer::Kind::Done)
      return failed;
    return stringReply(*replies[0], "GETRANGE");
  }

  std::vector<Transfer> getBlobs(const std::vector<BlobRef> &blobs) override {
    std::vector<std::string> names, ends;
    for (const BlobRef &blob : blobs) {
      names.push_back(std::string(kBlobPrefix) + blob.sha256);
      ends.push_back(std::to_string(blob.size));   // GETRANGE's end is inclusive: size + 1 at most
    }
    std::vector<Command> commands;
    for (std::size_t i = 0; i < blobs.size(); ++i)
      commands.push_back({"GETRANGE", names[i], "0", ends[i]});
    std::vector<Reply> replies;
    if (Transfer failed = run(commands, replies); failed.kind != Transfer::Kind::Done)
      return std::vector<Transfer>(blobs.size(), failed);
    std::vector<Transfer> answers;
    for (const Reply &reply : replies)
      answers.push_back(stringReply(*reply, "GETRANGE"));
    return answers;
  }

  Transfer putBlobs(const std::vector<BlobWrite> &blobs) override {
    std::vector<std::string> names;
    for (const BlobWrite &blob : blobs)
      names.push_back(std::string(kBlobPrefix) + blob.sha256);
    std::vector<Command> commands;
    for (std::size_t i = 0; i < blobs.size(); ++i)
      commands.push_back(setCommand(names[i], *blobs[i].bytes));
    return runWrites(commands);
  }

  Transfer putRecord(const std::string &key, const std::string &record) override {
    std::string name = std::string(kRecordPrefix) + key;
    return runWrites({setCommand(name, record)});
  }

private:
  Command setCommand(std::string_view name, std::string_view value) const {
    Command command{"SET", name, value};
    if (settings_.expirySeconds > 0) {
      command.push_back("EX");
      command.push_back(expiry_);
    }
    return command;
  }

  /// A GET-like reply as a Transfer: the empty string is Missing (no record or blob is empty).
  static Transfer stringReply(const redisReply &reply, std::string_view command) {
    if (reply.type == REDIS_REPLY_ERROR)
      return replyError(reply, command);
    if (reply.type == REDIS_REPLY_NIL || (reply.type == REDIS_REPLY_STRING && reply.len == 0))
      return Transfer::missing();
    if (reply.type != REDIS_REPLY_STRING)
      return Transfer::refused(std::string(command) + " returned an unexpected reply type");
    return Transfer::done(std::string(reply.str, reply.len));
  }

  /// Runs SET commands; Done when every reply is OK.
  Transfer runWrites(const std::vector<Command> &commands) {
    std::vector<Reply> replies;
    if (Transfer failed = run(commands, replies); failed.kind != Transfer::Kind::Done)
      return failed;
    for (const Reply &reply : replies)
      if (reply->type == REDIS_REPLY_ERROR)
        return replyError(*reply, "SET");
    return Transfer::done();
  }

  std::string ioError(const redisContext &context) const {
    std::string what = context.errstr;
    if (context.err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK))
      what = "no answer within " + std::to_string(settings_.timeout.count()) +
             " ms (TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS)";
    return "Redis at " + url_.host + ':' + std::to_string(url_.port) + ": " + what;
  }

  /// A new connection, authenticated and on the URL's database.
  Transfer connect(Context &context) {
    timeval timeout{};
    timeout.tv_sec = static_cast<time_t>(settings_.timeout.count() / 1000);
    timeout.tv_usec = static_cast<suseconds_t>(settings_.timeout.count() % 1000 * 1000);
    context.reset(redisConnectWithTimeout(url_.host.c_str(), url_.port, timeout));
    if (!context)
      return Transfer::unreachable("cannot allocate a Redis connection");
    if (context->err)
      return Transfer::unreachable(ioError(*context));
    if (redisSetTimeout(context.get(), timeout) != REDIS_OK)
      return Transfer::unreachable(ioError(*context));
    std::vector<Command> setup;
    if (!url_.password.empty())
      setup.push_back(url_.user.empty() ? Command{"AUTH", url_.password}
                                        : Command{"AUTH", url_.user, url_.password});
    std::string database = std::to_string(url_.database);
    if (url_.database != 0)
      setup.push_back({"SELECT", database});
    for (const Command &command : setup) {
      Reply reply(static_cast<redisReply *>(
          redisCommandArgv(context.get(), static_cast<int>(command.size()), argv(command).data(),
                           lengths(command).data())));
      if (!reply)
        return Transfer::unreachable(ioError(*context));
      if (reply->type != REDIS_REPLY_ERROR)
        continue;
      std::string text = errorText(*reply);
      if (command[0] == "AUTH")
        return Transfer::refused("the server refused the URL's credentials (" + text +
                                 "): fix the user or password in the URL");
      if (text.find("out of range") != std::string::npos)
        return Transfer::refused("SELECT " + database + " failed (" + text +
                                 "): the server has fewer databases");
      return replyError(*reply, "SELECT");
    }
    return Transfer::done();
  }

  static std::vector<const char *> argv(const Command &command) {
    std::vector<const char *> out;
    for (std::string_view arg : command)
      out.push_back(arg.data());
    return out;
  }
  static std::vector<std::size_t> lengths(const Command &command) {
    std::vector<std::size_t> out;
    for (std::string_view arg : command)
      out.push_back(arg.size());
    return out;
  }

  /// Sends \p commands as one pipeline on a pooled connection and reads their replies in order.
  /// A pooled connection that the server closed meanwhile is retried once on a new one.
  Transfer run(const std::vector<Command> &commands, std::vector<Reply> &replies) {
    SigpipeGuard guard;
    for (int attempt = 0;; ++attempt) {
      Context context;
      {
        std::lock_guard<std::mutex> lock(poolMutex_);
        if (attempt == 0 && !idle_.empty()) {
          context = std::move(idle_.back());
          idle_.pop_back();
        }
      }
      bool reused = context != nullptr;
      if (!context)
        if (Transfer made = connect(context); made.kind != Transfer::Kind::Done)
          return made;
      for (const Command &command : commands)
        if (redisAppendCommandArgv(context.get(), static_cast<int>(command.size()),
                                   argv(command).data(), lengths(command).data()) != REDIS_OK)
          return Transfer::unreachable("cannot queue a Redis command: out of memory");
      replies.clear();
      for (std::size_t i = 0; i < commands.size(); ++i) {
        void *reply = nullptr;
        if (redisGetReply(context.get(), &reply) != REDIS_OK)
          break;
        replies.emplace_back(static_cast<redisReply *>(reply));
      }
      if (replies.size() == commands.size()) {
        std::lock_guard<std::mutex> lock(poolMutex_);
        idle_.push_back(std::move(context));
        return Transfer::done();
      }
      bool closed = context->err == REDIS_ERR_EOF ||
                    (context->err == REDIS_ERR_IO && (errno == ECONNRESET || errno == EPIPE));
      if (!(reused && closed))
        return Transfer::unreachable(ioError(*context));
    }
  }

  RemoteUrl url_;
  std::string expiry_ = std::to_string(settings_.expirySeconds);
  std::mutex poolMutex_;
  std::vector<Context> idle_;   ///< connections no thread is using
};

} // namespace

std::unique_ptr<RemoteCache> openRedisCache(const RemoteCacheSettings &settings,
                                            const RemoteUrl &url) {
  return std::make_unique<RedisCache>(settings, url);
}

} // namespace tta::remote
