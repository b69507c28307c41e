"""fastmcp's proxy (create_proxy) serving one stdio server over Streamable HTTP at /mcp.

Usage: fastmcp_proxy.py PORT COMMAND [ARGS...]   (the server gets this process's environment)
A peer in the gateway's comparisons (scripts/check_gateway.sh, scripts/bench_hop.sh).
"""
import os
import sys

from fastmcp.server.server import create_proxy

port, command, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
server = {"command": command, "args": args, "env": dict(os.environ)}
proxy = create_proxy({"mcpServers": {os.path.basename(command): server}}, name="fastmcp-proxy")
proxy.run(transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="warning")
