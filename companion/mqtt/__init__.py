"""MQTT plumbing: the embedded broker, broker addresses and paho client helpers."""
