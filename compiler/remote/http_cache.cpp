// The HTTP backend (libcurl), in the Bazel remote cache's HTTP layout: blobs at
// <base>/cas/<sha256>, records at <base>/ac/<key>, read with GET, written with PUT after a HEAD
// that skips blobs the server has. Easy handles are pooled so that connections are kept alive.
#include "compiler/remote/blob_store.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>

namespace tta::remote {
namespace {

std::once_flag curlInitialized;

/// The most of an answer's body kept when no body is wanted (HEAD, PUT): enough for an error
/// page, and small enough that the connection is kept rather than the transfer cut.
constexpr std::uint64_t kReplyLimit = 64 << 10;

/// What one request got back.
struct Response {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
  std::string error;   ///< libcurl's message when code is not CURLE_OK
};

/// Collects a body of at most limit + 1 bytes; a longer one stops the transfer.
struct Sink {
  std::string *body;
  std::uint64_t limit;
  bool overflow = false;
};

std::size_t writeBody(char *data, std::size_t size, std::size_t count, void *user) {
  auto *sink = static_cast<Sink *>(user);
  std::size_t bytes = size * count;
  std::uint64_t room = sink->limit + 1 - sink->body->size();
  if (bytes > room) {
    sink->body->append(data, room);
    sink->overflow = true;
    return 0;   // aborts with CURLE_WRITE_ERROR
  }
  sink->body->append(data, bytes);
  return bytes;
}

/// Feeds an upload from a string.
struct Source {
  std::string_view data;
  std::size_t offset = 0;
};

std::size_t readBody(char *buffer, std::size_t size, std::size_t count, void *user) {
  auto *source = static_cast<Source *>(user);
  std::size_t bytes = std::min(size * count, source->data.size() - source->offset);
  std::memcpy(buffer, source->data.data() + source->offset, bytes);
  source->offset += bytes;
  return bytes;
}

class HttpCache final : public BlobStoreCache {
public:
  HttpCache(const RemoteCacheSettings &settings, RemoteUrl url)
      : BlobStoreCache(settings, redactUrl(settings.url)), url_(std::move(url)) {
    std::call_once(curlInitialized, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }
  ~HttpCache() override {
    for (CURL *handle : idle_)
      curl_easy_cleanup(handle);
  }

protected:
  Transfer getRecord(const std::string &key, std::uint64_t limit) override {
    return answer(request("GET", "/ac/" + key, nullptr, limit), "GET", "/ac/" + key);
  }

  std::vector<Transfer> getBlobs(const std::vector<BlobRef> &blobs) override {
    std::vector<Transfer> answers;
    for (const BlobRef &blob : blobs) {
      std::string path = "/cas/" + blob.sha256;
      answers.push_back(answer(request("GET", path, nullptr, blob.size), "GET", path));
      if (answers.back().kind != Transfer::Kind::Done) {   // the lookup stops there
        answers.resize(blobs.size(), answers.back());
        break;
      }
    }
    return answers;
  }

  Transfer putBlobs(const std::vector<BlobWrite> &blobs) override {
    for (const BlobWrite &blob : blobs) {
      std::string path = "/cas/" + blob.sha256;
      if (!blob.replace) {
        Transfer head = answer(request("HEAD", path, nullptr, kReplyLimit), "HEAD", path);
        if (head.kind == Transfer::Kind::Done)
          continue;
        if (head.kind != Transfer::Kind::Missing)
          return head;
      }
      if (Transfer put = answer(request("PUT", path, blob.bytes, kReplyLimit), "PUT", path);
          put.kind != Transfer::Kind::Done)
        return put;
    }
    return Transfer::done();
  }

  Transfer putRecord(const std::string &key, const std::string &record) override {
    return answer(request("PUT", "/ac/" + key, &record, kReplyLimit), "PUT", "/ac/" + key);
  }

private:
  /// One request on a pooled handle. \p upload is the body of a PUT; \p limit bounds the
  /// answer's body.
  Response request(const char *method, const std::string &path, const std::string *upload,
                   std::uint64_t limit) {
    CURL *handle = nullptr;
    {
      std::lock_guard<std::mutex> lock(poolMutex_);
      if (!idle_.empty()) {
        handle = idle_.back();
        idle_.pop_back();
      }
    }
    if (!handle && !(handle = curl_easy_init()))
      return {CURLE_OUT_OF_MEMORY, 0, {}, "cannot create a libcurl handle"};
    curl_easy_reset(handle);   // keeps the live connections

    Response response;
    char error[CURL_ERROR_SIZE] = "";
    Sink sink{&response.body, limit};
    Source source{upload ? std::string_view(*upload) : std::string_view()};
    curl_slist *headers = curl_slist_append(nullptr, "Expect:");   // no 100-continue wait
    if (!settings_.httpBearerToken.empty())
      headers = curl_slist_append(
          headers, ("Authorization: Bearer " + settings_.httpBearerToken).c_str());
    std::string url = url_.base + path;
    curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(settings_.timeout.count()));
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.timeout.count()));
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, writeBody);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &sink);
    if (!settings_.httpBasicAuth.empty()) {
      curl_easy_setopt(handle, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
      curl_easy_setopt(handle, CURLOPT_USERPWD, settings_.httpBasicAuth.c_str());
    }
    if (std::strcmp(method, "HEAD") == 0) {
      curl_easy_setopt(handle, CURLOPT_NOBODY, 1L);
    } else if (std::strcmp(method, "PUT") == 0) {
      headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
      curl_easy_setopt(handle, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(handle, CURLOPT_READFUNCTION, readBody);
      curl_easy_setopt(handle, CURLOPT_READDATA, &source);
      curl_easy_setopt(handle, CURLOPT_INFILESIZE_LARGE,
                       static_cast<curl_off_t>(source.data.size()));
    }
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
    {
      SigpipeGuard guard;
      response.code = curl_easy_perform(handle);
    }
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response.status);
    if (response.code == CURLE_WRITE_ERROR && sink.overflow)
      response.code = CURLE_OK;   // cut at limit + 1 bytes: the caller sees it is too long
    if (response.code != CURLE_OK)
      response.error = *error ? error : curl_easy_strerror(response.code);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, nullptr);
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(headers);
    std::lock_guard<std::mutex> lock(poolMutex_);
    idle_.push_back(handle);
    return response;
  }

  /// \p response as a Transfer, with the fix for the usual refusals.
  Transfer answer(Response response, const char *method, const std::string &path) const {
    std::string what = std::string(method) + ' ' + url_.base + path;
    if (response.code == CURLE_OPERATION_TIMEDOUT)
      return Transfer::unreachable(what + ": no answer within " +
                                   std::to_string(settings_.timeout.count()) +
                                   " ms (TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS)");
    if (response.code != CURLE_OK)
      return Transfer::unreachable(what + ": " + response.error);
    long status = response.status;
    if (status >= 200 && status < 300)
      return Transfer::done(std::move(response.body));
    if (status == 404)
      return Transfer::missing();
    std::string got = what + ": HTTP " + std::to_string(status);
    if (status >= 500)
      return Transfer::unreachable(got);
    if (status == 401 || status == 403) {
      bool hasAuth = !settings_.httpBearerToken.empty() || !settings_.httpBasicAuth.empty();
      return Transfer::refused(
          got + ": the server refused the credentials; " +
          (hasAuth ? "check TRITON_AOT_REMOTE_CACHE_TOKEN or TRITON_AOT_REMOTE_CACHE_BASIC_AUTH"
                   : "set TRITON_AOT_REMOTE_CACHE_TOKEN (bearer) or "
                     "TRITON_AOT_REMOTE_CACHE_BASIC_AUTH=user:password"));
    }
    if (std::strcmp(method, "PUT") == 0) {
      if (status == 405 || status == 501)
        return Transfer::refused(got + ": the server takes no uploads (nginx needs "
                                       "`dav_methods PUT`; or set TRITON_AOT_REMOTE_CACHE_READ_ONLY=1)");
      if (status == 413)
        return Transfer::refused(got + ": the entry is over the server's upload limit "
                                       "(nginx: client_max_body_size)");
      if (status == 400 && path.rfind("/ac/", 0) == 0)
        return Transfer::refused(got + ": the server validates action records as Bazel "
                                       "protobufs; start bazel-remote with "
                                       "--disable_http_ac_validation");
    }
    return Transfer::refused(got);
  }

  RemoteUrl url_;
  std::mutex poolMutex_;
  std::vector<CURL *> idle_;   ///< handles no thread is using, with their live connections
};

} // namespace

std::unique_ptr<RemoteCache> openHttpCache(const RemoteCacheSettings &settings,
                                           const RemoteUrl &url) {
  return std::make_unique<HttpCache>(settings, url);
}

} // namespace tta::remote
