"""soan.interpreter: plays a compiled spec."""
