#include "CWebSocketsShim.h"
unsigned int scws_lws_pre(void) { return LWS_PRE; }
