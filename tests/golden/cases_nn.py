def add_cases(c):
    pass
