"""The command line: arguments, exit codes and messages for people; each command hands over to a stage."""
