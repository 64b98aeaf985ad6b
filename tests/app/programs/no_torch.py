# SPDX-License-Identifier: MIT
"""A Python program that never imports torch."""
import json

print(json.dumps({"hello": "world"}))
