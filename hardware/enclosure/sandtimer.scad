// Sandtimer node enclosure: a parametric hourglass that holds the board, the
// battery and the LED bar of one companion sandtimer node.
//
// Two bulbs and a waist (printed in translucent PETG/PLA so the LEDs glow
// through like sand), a closed top cap and an open bottom cap that a lid
// closes with three M2.5 screws into heat-set inserts in screw bosses. The
// lid carries a vertical sled: the board on its front, the battery on its back
// and the LED strip on its edge, so the electronics slide in from below and
// come out as one piece.
//
// Everything is derived from the parameters below: change the node kind, the
// wall or the battery and the waist, bulbs and height follow.
//
// Render:
//   openscad -o preview.png --imgsize=800,800 --autocenter --viewall sandtimer.scad
//   openscad -D 'part="body"' -o body.stl sandtimer.scad
//   openscad -D 'part="lid"'  -o lid.stl  sandtimer.scad
//   openscad -D 'kind="pi-zero-2w"' ...   (pi-zero-2w, esp32, pico-w, pico-usb, esp32-c3)

/* [What to make] */
kind = "pico-w";        // [pi-zero-2w, esp32, pico-w, pico-usb, esp32-c3]
part = "preview";       // [preview, body, lid]

/* [Shell] */
wall = 2.0;             // wall thickness of bulbs and caps (mm)
clearance = 1.0;        // air gap between the sled contents and the wall (mm)
bulb_ratio = 1.55;      // bulb diameter / waist diameter
cap_h = 8;              // height of each end cap (mm)
cap_overhang = 3;       // how far the caps stick out past the bulbs (mm)
lid_t = 3;              // lid thickness (mm)
sled_t = 2;             // sled plate thickness (mm)

/* [Contents: 0 means the default for the node kind] */
board_size = [0, 0, 0];     // board length, width, height incl. parts (mm)
battery_size = [0, 0, 0];   // battery length, width, thickness (mm); pico-usb has none
led_bar_len = 0;            // length of the LED strip along the timer (mm)
led_strip_w = 12;           // width of the LED strip or NeoPixel stick (mm)
led_strip_depth = 6;        // LED strip or stick plus its rail (mm)
perf_size = [0, 0, 0];      // perfboard with the small parts: length, width, height (mm)

/* [Fasteners] */
insert_d = 3.6;         // hole for an M2.5 heat-set insert (mm)
insert_depth = 5;
screw_d = 2.9;          // clearance hole for M2.5 (mm)
screw_head_d = 5.2;     // counterbore for the pan head (mm)
screw_head_h = 1.8;
status_led_d = 5.2;     // hole for the 5 mm status LED at the waist (mm)

$fn = 96;

// ---------------------------------------------------------------- per-kind data
function pick(v, d) = v[0] > 0 ? v : d;

function kind_board(k) =
    k == "pi-zero-2w" ? [65, 30, 6] :      // Pi Zero 2 W, no header on the back
    k == "esp32"      ? [55, 28, 10] :     // ESP32-DevKitC-32E, no pin headers
    k == "esp32-c3"   ? [22.5, 18, 8] :    // ESP32-C3 SuperMini, wires soldered to its rows
                        [51, 21, 5];       // Pico / Pico W

function kind_battery(k) =
    k == "pi-zero-2w" ? [54, 34, 10] :     // LP103454 2000 mAh
    k == "pico-usb"   ? [0, 0, 0] :        // USB powered
    k == "esp32-c3"   ? [35, 25, 5] :      // LP502535 400 mAh
                        [62, 35, 5];       // LP503562 1200 mAh

// 8 x 3 mm LEDs at 8 mm pitch, 8 pixels of a 144/m strip (6.9 mm pitch), or a NeoPixel stick
function kind_led_len(k) = k == "pi-zero-2w" ? 64 : k == "esp32-c3" ? 56 : 51;

// Board mounting holes relative to the board centre; the DevKitC and the SuperMini have none (cable ties).
function kind_holes(k) =
    k == "pi-zero-2w" ? [[-29, -11.5], [29, -11.5], [-29, 11.5], [29, 11.5]] :
    k == "esp32" || k == "esp32-c3" ? [] :
                        [[-23.5, -5.7], [23.5, -5.7], [-23.5, 5.7], [23.5, 5.7]];

// The perfboard: 40 x 30 mm, or a narrow 50 x 20 mm strip beside the small board and cell of the
// esp32-c3 node, which keeps that timer slim enough to look like one.
function kind_perf(k) = k == "esp32-c3" ? [50, 20, 10] : [40, 30, 10];

board = pick(board_size, kind_board(kind));
perf = pick(perf_size, kind_perf(kind));
battery = battery_size[0] > 0 ? battery_size : kind_battery(kind);
led_len = led_bar_len > 0 ? led_bar_len : kind_led_len(kind);
has_battery = battery[0] > 0;

// ---------------------------------------------------------------- derived sizes
// The sled is a vertical plate. Front (+y): the board in the upper half and the
// perfboard (tilt switch, resistors, transistor) in the lower half. Back (-y):
// the battery in the lower half. Edge (+x): the LED strip, centred on the waist
// so it lights both bulbs. Cross-section of that bundle (x across, y through):
sled_w = max(board[1], battery[1], perf[1]);
x_min = -sled_w / 2;
x_max = sled_w / 2 + led_strip_depth;
y_min = -(sled_t / 2 + battery[2]);
y_max = sled_t / 2 + max(board[2], perf[2]);
sled_shift = [-(x_min + x_max) / 2, -(y_min + y_max) / 2];      // centre the bundle on the axis
inner_r = sqrt(pow(x_max - x_min, 2) + pow(y_max - y_min, 2)) / 2 + clearance;

gap = 4;
lower_len = max(battery[0], perf[0]);
sled_len = max(board[0] + lower_len + 3 * gap, led_len + 2 * gap);
board_z = sled_len - gap - board[0] / 2;       // board centre, upper half
lower_z = gap + lower_len / 2;                 // battery and perfboard centre, lower half
waist_r = inner_r + wall;
bulb_r = waist_r * bulb_ratio;
cap_r = bulb_r + cap_overhang;
body_len = sled_len + 6;                  // between the two caps
height = body_len + 2 * cap_h;
boss_r = (inner_r + cap_r) / 2;           // screw circle, in the solid bottom ring

echo(str("sandtimer ", kind, ": height ", height + lid_t, " mm, cap diameter ", 2 * cap_r,
         " mm, waist diameter ", 2 * waist_r, " mm"));

// ---------------------------------------------------------------- shell
// Outer radius at distance u from the waist (u = 0 at the waist, 1 at a cap):
// slim neck, full bulb, slight curl in towards the cap like blown glass.
function bulb_radius(u, r0, r1) = r0 + (r1 - r0) * pow(sin(u * 105), 1.4);

function half_profile(r0, r1, steps = 40) =
    [for (i = [0:steps]) let(u = i / steps) [bulb_radius(u, r0, r1), u * body_len / 2]];

module hourglass_solid(r0, r1) {
    // rotate_extrude of a closed profile spanning the whole body length
    half = half_profile(r0, r1);
    upper = [for (p = half) [p[0], body_len / 2 + p[1]]];
    lower = [for (i = [len(half) - 1:-1:0]) [half[i][0], body_len / 2 - half[i][1]]];
    rotate_extrude() polygon(concat([[0, 0]], lower, upper, [[0, body_len]]));
}

module body() {
    difference() {
        union() {
            translate([0, 0, cap_h]) hourglass_solid(waist_r, bulb_r);
            cylinder(r = cap_r, h = cap_h);                                  // bottom ring
            translate([0, 0, cap_h + body_len]) cylinder(r = cap_r, h = cap_h);  // top cap
            // ribs (the "pillars" of a wooden hourglass frame), also stiffen the waist
            for (a = [30, 150, 270]) rotate([0, 0, a])
                translate([cap_r - 2.5, -2, cap_h]) cube([2.5, 4, body_len]);
        }
        // cavity: the same hourglass shrunk by the wall, opened at the bottom
        translate([0, 0, cap_h - 0.01]) hourglass_solid(waist_r - wall, bulb_r - wall);
        translate([0, 0, -1]) cylinder(r = inner_r, h = cap_h + 2);
        translate([0, 0, cap_h - 0.01]) cylinder(r1 = inner_r, r2 = bulb_r - wall - 0.5, h = 2);
        // screw bosses: heat-set insert holes from below into the bottom ring
        for (a = [90, 210, 330]) rotate([0, 0, a])
            translate([boss_r, 0, -1]) cylinder(d = insert_d, h = insert_depth + 1);
        // status LED at the waist, facing the front (the board side)
        translate([0, 0, cap_h + body_len / 2]) rotate([-90, 0, 0])
            cylinder(d = status_led_d, h = cap_r + 1);
    }
}

// ---------------------------------------------------------------- lid and sled
module lid() {
    difference() {
        translate([0, 0, -lid_t]) cylinder(r = cap_r, h = lid_t);
        for (a = [90, 210, 330]) rotate([0, 0, a]) translate([boss_r, 0, -lid_t - 1]) {
            cylinder(d = screw_d, h = lid_t + 2);
            cylinder(d = screw_head_d, h = screw_head_h + 1);
        }
        // sound holes under the buzzer
        for (i = [0:5]) rotate([0, 0, i * 60]) translate([-inner_r / 2, 3, -lid_t - 1])
            cylinder(d = 1.6, h = lid_t + 2, $fn = 16);
        translate([-inner_r / 2, 0, -lid_t - 1]) cylinder(d = 1.6, h = lid_t + 2, $fn = 16);
        if (kind == "pico-usb") {
            // PG7 cable gland for the USB cable
            translate([inner_r / 2, 0, -lid_t - 1]) cylinder(d = 12.5, h = lid_t + 2);
        } else {
            // charger USB-C socket and the slide switch, reachable from below
            translate([inner_r / 2 - 5, -2, -lid_t - 1]) cube([10, 4, lid_t + 2]);
            translate([-3, -inner_r / 2 - 2, -lid_t - 1]) cube([9, 4, lid_t + 2]);
        }
    }
    translate(concat(sled_shift, [0])) sled();
}

module sled() {
    // the plate
    translate([-sled_w / 2, -sled_t / 2, 0]) cube([sled_w, sled_t, sled_len]);
    // board standoffs (or cable-tie bars for the DevKitC), upper half of the front
    holes = kind_holes(kind);
    if (len(holes) > 0) {
        for (h = holes) translate([h[1], sled_t / 2, board_z + h[0]]) rotate([-90, 0, 0])
            difference() { cylinder(d = 5, h = 3, $fn = 24); cylinder(d = 2.2, h = 4, $fn = 16); }
    } else {
        for (dz = [-board[0] / 3, board[0] / 3]) translate([-sled_w / 2, sled_t / 2, board_z + dz])
            difference() { cube([sled_w, 2, 4]); translate([2, -1, 1]) cube([sled_w - 4, 4, 2]); }
    }
    // perfboard standoffs, lower half of the front
    for (dx = [-perf[1] / 2 + 3, perf[1] / 2 - 3], dz = [-perf[0] / 2 + 3, perf[0] / 2 - 3])
        translate([dx, sled_t / 2, lower_z + dz]) rotate([-90, 0, 0])
            difference() { cylinder(d = 5, h = 3, $fn = 24); cylinder(d = 2.2, h = 4, $fn = 16); }
    // battery cradle: two hooks on the back, lower half
    if (has_battery) for (dz = [-battery[0] / 2 + 3, battery[0] / 2 - 6])
        translate([-sled_w / 2, -sled_t / 2 - battery[2] - 1.5, lower_z + dz]) {
            cube([2, battery[2] + 1.5, 3]);
            translate([sled_w - 2, 0, 0]) cube([2, battery[2] + 1.5, 3]);
            cube([sled_w, 1.5, 3]);
        }
    // LED strip rail along the right edge, centred on the waist, slot faces outwards
    translate([sled_w / 2, -led_strip_w / 2 - 1, body_len / 2 - 3 - led_len / 2 - 2])
        difference() {
            cube([3, led_strip_w + 2, led_len + 4]);
            translate([1, 1, 2]) cube([3, led_strip_w, led_len]);
        }
}

// ---------------------------------------------------------------- mock-ups for the preview
module contents() {
    translate(concat(sled_shift, [0])) {
        color("darkgreen") translate([-board[1] / 2, sled_t / 2 + 3, board_z - board[0] / 2])
            cube([board[1], max(board[2] - 3, 1.6), board[0]]);
        color("olivedrab") translate([-perf[1] / 2, sled_t / 2 + 3, lower_z - perf[0] / 2])
            cube([perf[1], 1.6, perf[0]]);
        if (has_battery) color("silver")
            translate([-battery[1] / 2, -sled_t / 2 - battery[2], lower_z - battery[0] / 2])
                cube([battery[1], battery[2], battery[0]]);
        color("orange") for (i = [0:7])
            translate([sled_w / 2 + 2, 0, body_len / 2 - 3 - led_len / 2 + (i + 0.5) * led_len / 8])
                rotate([0, 90, 0]) cylinder(d = 5, h = 3, $fn = 24);
    }
}

module assembled(cutaway = false) {
    turn = cutaway ? 180 : 0;      // cutaway: show the board side to the default camera
    difference() {
        color([0.95, 0.8, 0.45, 1]) rotate([0, 0, turn]) translate([0, 0, lid_t]) body();
        // remove the half facing the default camera to show the sled in place
        if (cutaway) translate([-cap_r - 1, -2 * cap_r - 1, -1]) cube([2 * cap_r + 2, 2 * cap_r + 1, height + lid_t + 2]);
    }
    rotate([0, 0, turn]) {
        color("saddlebrown") translate([0, 0, lid_t]) lid();
        if (cutaway) translate([0, 0, lid_t]) contents();
    }
}

if (part == "body") {
    body();
} else if (part == "lid") {
    // printed flat, sled up
    translate([0, 0, lid_t]) lid();
} else {
    assembled(false);
    translate([2.6 * cap_r, 0, 0]) assembled(true);
    // lid and sled on its own, to show how the electronics come out
    translate([5.2 * cap_r, 0, 0]) {
        color("saddlebrown") translate([0, 0, lid_t]) lid();
        translate([0, 0, lid_t]) contents();
    }
}
