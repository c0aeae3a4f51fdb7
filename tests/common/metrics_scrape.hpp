#pragma once

// Scraping a worker's Prometheus endpoint in a test: an HTTP GET over
// loopback and the samples of the text.

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <string>

namespace actorflow::test {

/// An HTTP/1.0 GET of `path` from 127.0.0.1:`port`: the whole response,
/// or empty if the connection failed. Reads give up after 10 s.
inline std::string http_get(uint16_t port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return {};
  }
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  auto request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (::write(fd, request.data(), request.size())
      != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return {};
  }
  std::string response;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0)
    response.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return response;
}

/// The status code of an HTTP response ("HTTP/1.x CODE ..."), or 0.
inline int status_of(const std::string& response) {
  auto space = response.find(' ');
  return response.rfind("HTTP/1.", 0) == 0 && space != std::string::npos
           ? std::atoi(response.c_str() + space + 1)
           : 0;
}

/// The value of the sample `series` (name and labels, as printed) in
/// `text`, or -1 if it is not there.
inline double sample(const std::string& text, const std::string& series) {
  auto at = text.find("\n" + series + " ");
  if (at == std::string::npos)
    return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

/// The port in "actorflow worker T metrics at http://H:PORT/metrics".
inline uint16_t metrics_port(const std::string& line) {
  std::smatch m;
  if (!std::regex_search(line, m, std::regex{":([0-9]+)/metrics$"}))
    return 0;
  return static_cast<uint16_t>(std::stoi(m[1]));
}

} // namespace actorflow::test
