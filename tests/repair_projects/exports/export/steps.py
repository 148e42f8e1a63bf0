from export.lowering import lower_for_serving


def double(x):
    return x * 2


def exported_shape():
    lowered = lower_for_serving(double, (8, 4))
    return lowered.out_info.shape


def exported_for_cpu():
    return lower_for_serving(double, (8, 4), ("cpu",)).out_info.shape


def exported_by_keyword():
    return lower_for_serving(double, (8, 4), platforms=("cpu",)).out_info.shape
