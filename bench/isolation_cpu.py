"""The CPU half of `make bench-isolation`: does a live room cost anything beyond its frames?

Three runs against one server, `drag` script (a driver sends an input every 8–16 ms):
- 500 rooms × (1 viewer + 1 driver): the issue's "many small rooms";
- 10 rooms × (1 + 1): the same shape with 50 times fewer rooms;
- 10 rooms × (100 + 1): the issue's "few large rooms".

Server CPU splits into what each room frame costs (its inputs, the engine step, the encode, the
log rows: paid once per room frame whatever the room's size) and what each delivery costs (one
frame written to one connection). The two 10-room runs make the same room frames and inputs per
second and differ only in deliveries, so their difference is the cost of a delivery. With it,
each run's CPU per room frame follows. A live room that cost anything beyond its frames (a walk
over every room per input, timers per room) would make a room frame dearer with 500 rooms than
with 10; the 10-room figure also carries the fixed costs of a second (store transactions, loop
wake-ups) spread over 50 times fewer room frames, so it is the higher one when rooms cost nothing.
"""

from dataclasses import dataclass

from .frame_cost import step_cpu_seconds, us_per_frame


@dataclass
class Costs:
    """One run's server CPU and what it delivered, over the load generator's measured window."""
    rooms: int
    per_room: int  # connections per room
    cpu_seconds: float
    deliveries: int  # frames received by all connections
    inputs: int

    @property
    def room_frames(self) -> float:
        """Frames the rooms made: each went to every connection of its room."""
        return self.deliveries / self.per_room

    @property
    def us_per_delivery(self) -> float:
        """Server CPU per delivered frame (0 when none was)."""
        return us_per_frame(self.cpu_seconds, self.deliveries) or 0.0

    @property
    def us_per_room_frame(self) -> float:
        return self.cpu_seconds * 1e6 / max(self.room_frames, 1)

    @property
    def inputs_per_room_frame(self) -> float:
        return self.inputs / max(self.room_frames, 1)


def costs(step) -> Costs:
    """A step (bench.load_step.run_step) as Costs."""
    report = step["report"]
    return Costs(rooms=report["rooms"], per_room=report["connections"] // max(report["rooms"], 1),
                 cpu_seconds=step_cpu_seconds(step), deliveries=report["framesReceived"], inputs=report["inputsSent"])


def per_delivery_us(same: Costs, few: Costs) -> float:
    """The CPU of one delivery: two runs with the same rooms, inputs and room frames per second,
    one with more connections per room."""
    return (few.cpu_seconds - same.cpu_seconds) * 1e6 / max(few.deliveries - same.deliveries, 1)


def per_room_frame_us(run: Costs, delivery_us: float) -> float:
    """The run's CPU per room frame once its deliveries are taken out."""
    return (run.cpu_seconds * 1e6 - delivery_us * run.deliveries) / max(run.room_frames, 1)


def construction_ratio(room_frame_us: float, delivery_us: float, small: int, large: int) -> float:
    """CPU per delivered frame of rooms of `small` connections over rooms of `large`, if a room
    frame cost the same in both."""
    return (room_frame_us / small + delivery_us) / (room_frame_us / large + delivery_us)


def report_lines(many: Costs, same: Costs, few: Costs, rows: list[str], header: list[str]) -> tuple[list[str], dict]:
    """Markdown for the section and the figures to print as name=value."""
    delivery = per_delivery_us(same, few)
    room_frame_many = per_room_frame_us(many, delivery)
    room_frame_ten = per_room_frame_us(same, delivery)
    stated = many.us_per_delivery / max(few.us_per_delivery, 1e-9)
    floor = construction_ratio(room_frame_many, delivery, many.per_room, few.per_room)
    room_count = room_frame_many / max(room_frame_ten, 1e-9)
    bound = 0.2 / (1 / many.per_room - 1.2 / few.per_room)
    lines = header + rows + [
        "",
        f"- **The goal as the issue states it**, CPU per delivered frame of 500 × (1 + 1) over 10 × (100 + 1): "
        f"**{stated:.2f}** (goal: within 20 %).",
        f"- **A delivery** (one frame written to one connection) costs **{delivery:.1f} µs**: the two 10-room runs "
        f"make the same room frames and inputs per second, and this is their difference per extra delivery.",
        f"- **A room frame** costs **{room_frame_many:.1f} µs** with 500 rooms (with its "
        f"{many.inputs_per_room_frame:.2f} inputs at the `drag` script's rate: receive, decode, apply, log, engine "
        f"step, encode) and {room_frame_ten:.1f} µs with 10 (fixed costs per second spread over 50 times fewer "
        f"frames). Rooms of 2 share a room frame between 2 deliveries and rooms of 101 between 101, so with a room "
        f"frame at the 500-room cost in both, the stated ratio would be **{floor:.2f}** by construction. The 20 % "
        f"goal needs a room frame, inputs included, to cost under {bound:.2f} deliveries.",
        f"- **What a live room costs beyond its frames**: a room frame with 500 rooms over one with 10: "
        f"**{room_count:.2f}** (above 1 would be a cost per live room).",
    ]
    figures = {
        "isolation_cpu_stated_ratio": stated,
        "isolation_cpu_by_construction_ratio": floor,
        "isolation_cpu_room_frame_500_over_10": room_count,
    }
    return lines, figures
