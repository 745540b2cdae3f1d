package oskit
