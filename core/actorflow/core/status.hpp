#pragma once

#include <memory>
#include <string>
#include <utility>

#include "actorflow/core/errc.hpp"

namespace actorflow::core {

/// The outcome of an operation: ok, or a code, a message and where it
/// happened (node, op, device).
///
/// An ok status holds no allocation; copying it is free. Every function that
/// can fail returns one, and the compiler insists that callers look at it.
class [[nodiscard]] status {
public:
  /// Constructs an ok status.
  status() noexcept = default;

  status(errc code, std::string message);

  static status ok() noexcept {
    return {};
  }

  bool is_ok() const noexcept {
    return rep_ == nullptr;
  }

  errc code() const noexcept {
    return rep_ ? rep_->code : errc::ok;
  }

  const std::string& message() const noexcept;
  const std::string& node() const noexcept;
  const std::string& op() const noexcept;
  const std::string& device() const noexcept;

  /// Returns a copy that names where the error happened; fields already set
  /// are kept, so the innermost context wins.
  status with_context(std::string_view node, std::string_view op,
                      std::string_view device = {}) const;

  /// Returns a copy whose message starts with `what: `, e.g. the file or
  /// the flag the error came from; the rest is kept.
  status prefixed(std::string_view what) const;

  /// Renders e.g. `invalid_argument: bad shape {{node x}} {{op MatMul}}`.
  std::string to_string() const;

  /// Marks a status as deliberately ignored.
  void ignore() const noexcept {
    // nop
  }

  friend bool operator==(const status& x, const status& y) noexcept;
  friend bool operator!=(const status& x, const status& y) noexcept {
    return !(x == y);
  }

private:
  struct rep {
    errc code;
    std::string message;
    std::string node;
    std::string op;
    std::string device;
  };
  std::shared_ptr<const rep> rep_;
};

// -- factories ----------------------------------------------------------------

namespace detail {
inline std::string to_piece(std::string_view x) {
  return std::string{x};
}
inline std::string to_piece(const char* x) {
  return x;
}
inline std::string to_piece(const std::string& x) {
  return x;
}
inline std::string to_piece(char x) {
  return std::string(1, x);
}
template <class T>
auto to_piece(T x) -> decltype(std::to_string(x)) {
  return std::to_string(x);
}
template <class... Ts>
std::string str_cat(Ts&&... xs) {
  std::string out;
  ((out += to_piece(std::forward<Ts>(xs))), ...);
  return out;
}
} // namespace detail

#define ACTORFLOW_STATUS_FACTORY(name)                                         \
  template <class... Ts>                                                       \
  status name##_error(Ts&&... xs) {                                            \
    return status{errc::name, detail::str_cat(std::forward<Ts>(xs)...)};       \
  }

/// Factories that concatenate their arguments into the message, e.g.
/// `invalid_argument_error("expected rank ", 2, ", got ", r)`.
ACTORFLOW_STATUS_FACTORY(cancelled)
ACTORFLOW_STATUS_FACTORY(invalid_argument)
ACTORFLOW_STATUS_FACTORY(deadline_exceeded)
ACTORFLOW_STATUS_FACTORY(not_found)
ACTORFLOW_STATUS_FACTORY(already_exists)
ACTORFLOW_STATUS_FACTORY(resource_exhausted)
ACTORFLOW_STATUS_FACTORY(failed_precondition)
ACTORFLOW_STATUS_FACTORY(aborted)
ACTORFLOW_STATUS_FACTORY(out_of_range)
ACTORFLOW_STATUS_FACTORY(unimplemented)
ACTORFLOW_STATUS_FACTORY(internal)
ACTORFLOW_STATUS_FACTORY(unavailable)
ACTORFLOW_STATUS_FACTORY(data_loss)

#undef ACTORFLOW_STATUS_FACTORY

} // namespace actorflow::core

/// Returns the status of `expr` from the enclosing function unless it is ok.
#define ACTORFLOW_RETURN_IF_ERROR(expr)                                        \
  do {                                                                         \
    ::actorflow::core::status af_status_ = (expr);                             \
    if (!af_status_.is_ok())                                                   \
      return af_status_;                                                       \
  } while (false)

/// Returns `on_error(status)` from the enclosing function unless `expr` is
/// ok.
#define ACTORFLOW_RETURN_IF_ERROR_OR(expr, on_error)                           \
  do {                                                                         \
    ::actorflow::core::status af_status_ = (expr);                             \
    if (!af_status_.is_ok())                                                   \
      return on_error(std::move(af_status_));                                  \
  } while (false)
