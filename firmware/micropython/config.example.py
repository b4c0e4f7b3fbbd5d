"""Settings of one MicroPython sandtimer node. Copy to config.py, edit, and copy it to the board.

Pin numbers default to hardware/wiring/pins.csv for the board you name; override
single ones under "pins". The tilt values come from hardware/tools/tilt_calibration.py.
"""

CONFIG = {
    "node_id": "blue-2",  # 1-32 characters of a-z 0-9 _ -; unique at the table
    "table": "kitchen",  # the hub's table id
    "board": "pico-w",  # "esp32", "esp32-c3", "pico-w" or "pico-usb"
    "link": "wifi",  # "wifi" (MQTT) or "serial" (USB, through `companion serial-bridge`)
    "wifi_ssid": "my-network",
    "wifi_password": "secret",
    "broker_host": "192.168.1.10",  # None: find the table's hub by mDNS
    "broker_port": 1883,  # 8883 by default with broker_tls
    # On a locked table `companion node add blue-2` prints these lines (user = node id):
    "broker_user": None,
    "broker_password": None,
    "broker_tls": False,  # True: TLS, checking the broker against broker_ca
    "broker_ca": None,  # the table's CA certificate on the board, e.g. "ca.crt" (deploy.py --ca-file)
    "broker_tls_name": None,  # the name in the broker's certificate, if broker_host is an IP address
    "sand_ms": 60000,  # a full timer; the hub's `config` command overrides it
    "tilt_debounce_ms": 30,
    "tilt_rest_ms": 150,
    "accel_axis": None,  # "ax"/"ay"/"az" to use an ADXL345 instead of the ball switch
    "brightness": 0.3,  # NeoPixel bar, 0-1
    "low_battery_mv": 3500,
    "lightsleep": False,  # light sleep while off-line (saves power; PWM and Wi-Fi stop meanwhile)
    "pins": None,  # e.g. {"tilt": 13}
}
