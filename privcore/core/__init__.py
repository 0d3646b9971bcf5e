"""What every part of privcore shares and that depends on nothing else in it."""
