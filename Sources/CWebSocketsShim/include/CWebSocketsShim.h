#ifndef CWEBSOCKETSSHIM_H
#define CWEBSOCKETSSHIM_H
#include <libwebsockets.h>
/// LWS_PRE is built with a padding macro Swift cannot import.
unsigned int scws_lws_pre(void);
#endif
