"""The weather package's skill: `weather.current`."""

import json

import limina_http as fetch
from limina_skill import InvalidInput, Skill, SkillError, environment

DEFAULT_API = "https://api.open-meteo.com/v1"


def current(input, ctx):
    """Fetches the current temperature and wind at a place. The API base and key come from
    the secrets the host gives the package, when set."""
    env = environment()
    lat, lon = input["latitude"], input["longitude"]
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise InvalidInput("`latitude` must be within -90..90 and `longitude` within -180..180")
    base = env.get("WEATHER_API_URL", DEFAULT_API).rstrip("/")
    headers = []
    if env.get("WEATHER_API_KEY"):
        headers.append(("x-api-key", env["WEATHER_API_KEY"]))
    url = f"{base}/forecast?latitude={lat}&longitude={lon}&current=temperature_2m,wind_speed_10m"
    try:
        response = fetch.get(url, headers)
    except fetch.FetchError as e:
        raise SkillError(f"the weather API could not be reached: {e}")
    if response.status != 200:
        raise SkillError(f"the weather API answered {response.status}")
    try:
        now = json.loads(response.body)["current"]
        return {
            "temperatureC": float(now["temperature_2m"]),
            "windKmh": float(now["wind_speed_10m"]),
            "time": str(now.get("time", "")),
        }
    except (ValueError, KeyError, TypeError) as e:
        raise SkillError(f"the weather API answered something unexpected: {type(e).__name__}")


SKILLS = [
    Skill(
        name="weather.current",
        version="1.0.0",
        description="Current temperature (°C) and wind speed (km/h) at a latitude and longitude, from a weather API.",
        handler=current,
        input_schema={
            "type": "object",
            "properties": {
                "latitude": {"type": "number", "minimum": -90, "maximum": 90, "description": "Degrees north."},
                "longitude": {"type": "number", "minimum": -180, "maximum": 180, "description": "Degrees east."},
            },
            "required": ["latitude", "longitude"],
        },
        output_schema={
            "type": "object",
            "properties": {
                "temperatureC": {"type": "number"},
                "windKmh": {"type": "number"},
                "time": {"type": "string"},
            },
            "required": ["temperatureC", "windKmh", "time"],
        },
        permissions=("net.outbound",),
        idempotent=False,
        open_world=True,
    )
]
