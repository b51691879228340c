"""soan.verify: verification of specs with z3 and hypothesis (see issue: `soan verify`)."""
