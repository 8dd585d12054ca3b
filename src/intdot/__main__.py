import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while intdot itself is imported: the status main() gives for it
    sys.stderr.write("intdot: interrupted\n")
    sys.exit(130)

sys.exit(main())
