import ScrollEngine
import ScrollWire
import WebSockets
