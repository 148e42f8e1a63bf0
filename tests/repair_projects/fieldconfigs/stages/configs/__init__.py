from stages.configs import base, host, small

BUILDERS = {"base": base.build, "small": small.build, "host": host.build}
