import CWebSocketsShim
/// Bytes libwebsockets needs before every payload it writes.
let lwsPre = Int(scws_lws_pre())
