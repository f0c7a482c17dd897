import second
