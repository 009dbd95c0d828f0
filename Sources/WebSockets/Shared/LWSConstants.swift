internal import CWebSocketsShim

/// Bytes libwebsockets needs before every payload it writes (LWS_PRE, not importable directly).
let lwsPre = Int(scws_lws_pre())
