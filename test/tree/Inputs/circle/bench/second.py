from first import thing
