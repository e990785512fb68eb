// The Redis backend (hiredis): blobs at triton-aot:v1:cas:<sha256>, records at
// triton-aot:v1:ac:<key>, written with SET (EX when the settings ask for an expiry) and read
// with GETRANGE, which bounds what a damaged or hostile server can make us read.
#include "compiler/remote/blob_store.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <optional>
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

  using Clock = std::chrono::steady_clock;

  std::string where() const { return "Redis at " + url_.host + ':' + std::to_string(url_.port); }
  Transfer timedOut() const {
    return Transfer::unreachable(where() + ": no answer within " +
                                 std::to_string(settings_.timeout.count()) +
                                 " ms (TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS)");
  }
  Transfer ioError(const redisContext &context) const {
    if (context.err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK))
      return timedOut();
    return Transfer::unreachable(where() + ": " + context.errstr);
  }

  /// The time left until \p deadline, at least a millisecond; none once it has passed.
  static std::optional<timeval> timeLeft(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      return std::nullopt;
    left = std::max(left, std::chrono::microseconds(1000));
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(left.count() / 1'000'000);
    tv.tv_usec = static_cast<suseconds_t>(left.count() % 1'000'000);
    return tv;
  }

  /// Sends \p commands as one pipeline and reads their replies, all before \p deadline. hiredis'
  /// own timeout bounds each read(2) and write(2), so a server that sends a byte now and then
  /// would hold a blocking redisGetReply() for ever: here every read and write gets the time
  /// left as its timeout, and none starts after the deadline.
  Transfer exchange(redisContext &context, const std::vector<Command> &commands,
                    std::vector<Reply> &replies, Clock::time_point deadline) const {
    for (const Command &command : commands)
      if (redisAppendCommandArgv(&context, static_cast<int>(command.size()),
                                 argv(command).data(), lengths(command).data()) != REDIS_OK)
        return Transfer::unreachable("cannot queue a Redis command: out of memory");
    for (int done = 0; !done;) {
      std::optional<timeval> left = timeLeft(deadline);
      if (!left)
        return timedOut();
      if (redisSetTimeout(&context, *left) != REDIS_OK ||
          redisBufferWrite(&context, &done) != REDIS_OK)
        return ioError(context);
    }
    replies.clear();
    while (replies.size() < commands.size()) {
      void *reply = nullptr;
      if (redisGetReplyFromReader(&context, &reply) != REDIS_OK)
        return Transfer::unreachable(where() + ": " + context.errstr);
      if (reply) {
        replies.emplace_back(static_cast<redisReply *>(reply));
        continue;
      }
      std::optional<timeval> left = timeLeft(deadline);
      if (!left)
        return timedOut();
      if (redisSetTimeout(&context, *left) != REDIS_OK || redisBufferRead(&context) != REDIS_OK)
        return ioError(context);
    }
    return Transfer::done();
  }

  /// A new connection, authenticated and on the URL's database, before \p deadline.
  Transfer connect(Context &context, Clock::time_point deadline) {
    std::optional<timeval> left = timeLeft(deadline);
    if (!left)
      return timedOut();
    context.reset(redisConnectWithTimeout(url_.host.c_str(), url_.port, *left));
    if (!context)
      return Transfer::unreachable("cannot allocate a Redis connection");
    if (context->err)
      return ioError(*context);
    std::vector<Command> setup;
    if (!url_.password.empty())
      setup.push_back(url_.user.empty() ? Command{"AUTH", url_.password}
                                        : Command{"AUTH", url_.user, url_.password});
    std::string database = std::to_string(url_.database);
    if (url_.database != 0)
      setup.push_back({"SELECT", database});
    std::vector<Reply> replies;
    if (Transfer sent = exchange(*context, setup, replies, deadline);
        sent.kind != Transfer::Kind::Done)
      return sent;
    for (std::size_t i = 0; i < setup.size(); ++i) {
      const redisReply &reply = *replies[i];
      if (reply.type != REDIS_REPLY_ERROR)
        continue;
      std::string text = errorText(reply);
      if (setup[i][0] == "AUTH")
        return Transfer::refused("the server refused the URL's credentials (" + text +
                                 "): fix the user or password in the URL");
      if (text.find("out of range") != std::string::npos)
        return Transfer::refused("SELECT " + database + " failed (" + text +
                                 "): the server has fewer databases");
      return replyError(reply, "SELECT");
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

  /// Sends \p commands as one pipeline on a pooled connection and reads their replies in order,
  /// all within the settings' timeout (connecting included). A pooled connection that the
  /// server closed meanwhile is retried once on a new one.
  Transfer run(const std::vector<Command> &commands, std::vector<Reply> &replies) {
    SigpipeGuard guard;
    const Clock::time_point deadline = Clock::now() + settings_.timeout;
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
        if (Transfer made = connect(context, deadline); made.kind != Transfer::Kind::Done)
          return made;
      Transfer exchanged = exchange(*context, commands, replies, deadline);
      if (exchanged.kind == Transfer::Kind::Done) {
        std::lock_guard<std::mutex> lock(poolMutex_);
        idle_.push_back(std::move(context));
        return exchanged;
      }
      // A connection that failed part-way is never pooled again: its replies are out of step.
      bool closed = context->err == REDIS_ERR_EOF ||
                    (context->err == REDIS_ERR_IO && (errno == ECONNRESET || errno == EPIPE));
      if (!(reused && closed))
        return exchanged;
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
